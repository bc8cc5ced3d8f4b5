package engine

// A consumer group member is a process of its own (see package consumer):
// this file starts one, reads its reports, stops or kills it, and says how
// it ended.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/consumer"
	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// member is one member process, a client driver's (driver.Member):
// franz-go's (this binary) or another client's.
type member struct {
	n       int
	pid     int
	signal  func(syscall.Signal) error // SIGTERM: a clean stop; SIGKILL: the process (group) at once
	done    chan struct{}              // closed once the process is reaped and its output read
	start   time.Time
	end     time.Time
	crashed bool            // it reported a crash (--crash-at)
	paused  bool            // pause consumer froze it (SIGSTOP), and no resume consumer has let it go on
	fenced  string          // the error of the fenced event it reported: a successor with its transactional.id took over
	killed  string          // why kafkabook killed or stopped it, "" if it did not
	stderr  func() string   // its last words
	notes   []string        // what its start found for the step's output (letthrough.go)
	logged  func() []string // a driver member's stderr lines, for its client's errors (letthrough.go)
	state   launch.Exit     // how the process ended
	exitErr error
}

// memberStopWait bounds a clean stop: the member finishes the batch in
// hand first.
func memberStopWait(c runbook.Consume) time.Duration {
	return time.Duration(c.Batch)*c.Work + 30*time.Second
}

// startMember launches the next member of g; the consume step's member
// carries the crash flags, members started later do not.
func (w *workload) startMember(ctx context.Context, g *group, first bool) (*member, error) {
	g.mu.Lock()
	if m := g.running(); m != nil {
		g.mu.Unlock()
		return nil, fmt.Errorf("group %s: member %d (pid %d) still runs: crash consumer or stop consumer first", g.label, m.n, m.pid)
	}
	n := len(g.members) + 1
	g.inHand = map[recordKey]bool{}
	g.mu.Unlock()

	c := g.spec
	ref, viaDriver, err := w.consumerRef(c)
	if err != nil {
		return nil, err
	}
	crashAt, crashPoint := 0, ""
	if first {
		crashAt, crashPoint = c.CrashAt, c.CrashPoint
	}
	var p memberProcess
	if viaDriver {
		p, err = w.startDriverMember(ctx, g, ref, n, crashAt, crashPoint)
	} else {
		p, err = w.startOwnMember(ctx, g, n, crashAt, crashPoint)
	}
	if err != nil {
		return nil, err
	}
	m := p.m
	g.mu.Lock()
	g.members = append(g.members, m)
	g.mu.Unlock()
	w.ev.Emit(results.KindMember, w.num, results.MemberEvent{Group: g.name, Member: results.Member{N: n, PID: m.pid, Start: m.start}})
	go w.watchMember(g, m, p.read, p.wait)
	return m, nil
}

// memberProcess is a started member with how to read its reports and
// reap it, for watchMember.
type memberProcess struct {
	m    *member
	read func(yield func(results.ConsumerEvent))
	wait func() (launch.Exit, error)
}

// startOwnMember starts franz-go's member: this binary as franz-go's
// driver (driver.FranzGo), behind the protocol every client's member
// speaks.
func (w *workload) startOwnMember(ctx context.Context, g *group, n, crashAt int, crashPoint string) (memberProcess, error) {
	c := g.spec
	spec := consumer.Spec{
		Brokers: w.reachable(ctx).Seeds, Access: w.access, Topic: g.topic.name, Group: g.name, Member: n,
		Commit: c.Commit, Batch: c.Batch, Work: c.Work, AutoCommit: c.AutoCommit,
		Dedup: c.Dedup, Store: g.store, CrashAt: crashAt, CrashPoint: crashPoint,
		Handoff: c.Handoff, Transform: w.transformSpec(g),
	}
	exe, err := franzGoBinary()
	if err != nil {
		return memberProcess{}, err
	}
	dm, err := driver.FranzGo(exe, w.launcher, w.access).StartFranzGoMember(ctx, spec)
	if err != nil {
		return memberProcess{}, fmt.Errorf("starting member %d of group %s: %w", n, g.label, err)
	}
	st := dm.Startup()
	w.ev.Emit(results.KindClient, w.num, st.Info())
	w.con.printf("  group %s member %d: client franz-go (started in %s): %s\n", g.label, n, st.Took.Round(time.Millisecond), st.DescribeMember())
	return w.memberProcess(g, n, dm, nil), nil
}

// franzGoBinary is the program that runs franz-go's driver: this kafkabook
// binary (os.Executable), or a test binary whose TestMain forwards the
// role (internal/subcommand).
func franzGoBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the kafkabook binary to run franz-go's driver: %w", err)
	}
	return exe, nil
}

// watchMember reads a member's reports until its output ends, then reaps
// it and records how it ended.
func (w *workload) watchMember(g *group, m *member, read func(yield func(results.ConsumerEvent)), wait func() (launch.Exit, error)) {
	read(g.add)
	m.state, m.exitErr = wait()
	m.end = time.Now().UTC()
	w.flushGroups()
	g.mu.Lock()
	end := results.Member{N: m.n, PID: m.pid, Start: m.start, End: m.end}
	end.How, end.Reason = m.how()
	if m.logged != nil {
		end.ClientErrors = clientErrors(m.logged())
	}
	g.mu.Unlock()
	w.ev.Emit(results.KindMember, w.num, results.MemberEvent{Group: g.name, Member: end})
	close(m.done)
}

// how says how a member ended and why.
func (m *member) how() (string, string) {
	killed := m.state.Signal == syscall.SIGKILL
	switch {
	case killed && m.crashed:
		return results.MemberCrashed, "killed itself with SIGKILL: --crash-at"
	case killed && m.killed != "":
		return results.MemberCrashed, m.killed
	case m.exitErr == nil && m.fenced != "":
		return results.MemberStopped, "fenced by a successor with its transactional.id: " + m.fenced
	case m.exitErr == nil && m.killed != "":
		return results.MemberStopped, m.killed
	case m.exitErr == nil:
		return results.MemberStopped, "exited"
	}
	reason := m.exitErr.Error()
	if last := strings.TrimSpace(m.stderr()); last != "" {
		reason += ": " + last
	}
	return results.MemberFailed, reason
}

// stopMember stops g's running member cleanly, killing it when it does
// not stop in time (or at once with kill); nil when none ran.
func (w *workload) stopMember(g *group, why string, kill bool) (*member, error) {
	g.mu.Lock()
	m := g.running()
	if m != nil {
		m.killed = why
	}
	g.mu.Unlock()
	if m == nil {
		return nil, nil
	}
	if kill {
		m.signal(syscall.SIGKILL)
		<-m.done
		return m, nil
	}
	m.signal(syscall.SIGTERM)
	wait := memberStopWait(g.spec)
	select {
	case <-m.done:
		return m, nil
	case <-time.After(wait):
	}
	m.signal(syscall.SIGKILL)
	<-m.done
	return m, fmt.Errorf("member %d (pid %d) of group %s did not stop within %s of SIGTERM: killed", m.n, m.pid, g.label, wait)
}

// stopMembers stops every running member, cleanly or, when the run
// failed, at once with SIGKILL; and records each group's end offsets for
// its tally: after the run, the final read's sentinels move them.
func (w *workload) stopMembers(why string, kill bool) error {
	groups := w.groupList()
	var errs []error
	for _, g := range groups {
		// The running member, and any that ran beside it (a member
		// resumed after its successor started).
		for {
			m, err := w.stopMember(g, why, kill)
			if err != nil {
				errs = append(errs, err)
			}
			if m == nil {
				break
			}
		}
		// Members still frozen (pause consumer) go on first, then stop
		// as the running one did.
		if err := w.stopFrozen(g, why, kill); err != nil {
			errs = append(errs, err)
		}
		if g.end == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			g.end, _ = w.admin.EndOffsets(ctx, g.topic.name)
			cancel()
		}
	}
	w.flushGroups()
	return errors.Join(errs...)
}
