package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/consumer"
	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// group is a consumer group of this run: its consume step, its members
// (one running at a time) and the events they reported that are not yet
// written to the event stream.
type group struct {
	label, name string
	topic       *topicState
	spec        runbook.Consume // the consume step
	store       string          // the SQLite file, absolute
	transform   *transformGroup // a transform group's step (transform.go); nil for consume

	mu      sync.Mutex
	members []*member
	pending []results.ConsumerEvent // not yet written to the event stream
	events  []results.ConsumerEvent // every report, for the tally
	inHand  map[recordKey]bool      // delivered to the running member, not yet applied or skipped
	end     map[int32]int64         // end offsets when the members were stopped
	tally   *results.ConsumerTally
}

type recordKey struct {
	p int32
	o int64
}

var _ = handles(consume, runbook.OpConsume)

// consume: consume TOPIC --group G --commit auto|greedy|after|before ... &
//
// The member runs as a process of its own (its client's driver; franz-go's
// is this binary), so that crash consumer is a real SIGKILL. The step returns once the
// process runs; the & says that the member goes on.
func consume(ctx context.Context, w *workload, s runbook.Step, c runbook.Consume, log *stepLog) error {
	t := w.topic(c.Topic)
	g := &group{
		label: c.Group, name: w.realName(c.Group), topic: t, spec: c,
		store:  w.storePath(c.Group),
		inHand: map[recordKey]bool{},
	}
	w.mu.Lock()
	w.groups[g.label] = g
	w.groupOrder = append(w.groupOrder, g.label)
	w.mu.Unlock()
	w.ev.Emit(results.KindConsumer, w.num, results.Consumer{
		Group: g.name, Label: g.label, Topic: t.label, Commit: c.Commit, Dedup: c.Dedup,
		Store: filepath.Base(g.store), Pos: s.Pos.String(), Settings: maps.Clone(c.Settings),
		Members: []results.Member{}, Events: []results.ConsumerEvent{}, Offsets: []results.OffsetSample{},
	})
	m, err := w.startMember(ctx, g, true)
	if err != nil {
		return err
	}
	log.line("member %d of group %s started (pid %d): commit %s, dedup %s, batch %d%s",
		m.n, g.label, m.pid, c.Commit, c.Dedup, c.Batch, workText(c))
	for _, n := range m.notes {
		log.line("%s", n)
	}
	return nil
}

// workText is what the consume step says of its settings beyond the
// commit mode, dedup and batch, each as written.
func workText(c runbook.Consume) string {
	var b strings.Builder
	if v, ok := c.Settings["work"]; ok {
		fmt.Fprintf(&b, ", %s of work a message", v)
	}
	if c.AutoCommit > 0 {
		fmt.Fprintf(&b, ", auto-commit every %s", c.Settings["auto-commit-interval"])
	}
	if c.CrashAt > 0 {
		fmt.Fprintf(&b, "; crashes at message %d (%s)", c.CrashAt, c.CrashPoint)
	}
	return b.String()
}

// readStore reads a group's store once it is back on this machine from
// where its members ran, with its write-ahead log: a member killed with
// SIGKILL leaves its last transactions there.
func (w *workload) readStore(ctx context.Context, g *group) (consumer.Contents, error) {
	for _, p := range []string{g.store, g.store + "-wal", g.store + "-shm"} {
		if err := launch.Retrieve(ctx, w.launcher, p); err != nil {
			return consumer.Contents{}, fmt.Errorf("bringing back the store %s from where the members ran: %w", filepath.Base(p), err)
		}
	}
	store, err := consumer.OpenStore(g.store)
	if err != nil {
		return consumer.Contents{}, err
	}
	contents, err := store.Read(ctx)
	store.Close()
	if err != nil {
		return consumer.Contents{}, fmt.Errorf("reading the store of group %s: %w", g.label, err)
	}
	return contents, nil
}

// storePath is where a group's store is kept: in the run's evidence
// directory, as an absolute path, which names the same place wherever the
// members run.
func (w *workload) storePath(group string) string {
	p := filepath.Join(w.opts.Dir, storeFile(group, w.num))
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// storeFile is the name of a group's store in the evidence directory.
func storeFile(label string, run int) string {
	return fmt.Sprintf("consumer-%s-r%d.sqlite", label, run)
}

// add takes one report of the running member.
func (g *group) add(ev results.ConsumerEvent) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending = append(g.pending, ev)
	g.events = append(g.events, ev)
	k := recordKey{ev.Partition, ev.Offset}
	switch ev.Kind {
	case results.EventDeliver:
		g.inHand[k] = true
	case results.EventEffect:
		delete(g.inHand, k)
	case results.EventSkip:
		delete(g.inHand, k)
	case results.EventCrash:
		if m := g.member(ev.Member); m != nil {
			m.crashed = true
		}
	case results.EventFenced:
		if m := g.member(ev.Member); m != nil {
			m.fenced = ev.Error
		}
	}
}

// member is member n of the group (numbered from 1 as started), or nil.
// g.mu is held.
func (g *group) member(n int) *member {
	if n < 1 || n > len(g.members) {
		return nil
	}
	return g.members[n-1]
}

// running is the newest member whose process still runs and is not
// frozen by pause consumer, or nil. g.mu is held.
func (g *group) running() *member {
	for i := len(g.members) - 1; i >= 0; i-- {
		m := g.members[i]
		select {
		case <-m.done:
		default:
			if !m.paused {
				return m
			}
		}
	}
	return nil
}

// group returns the run's group by its label.
func (w *workload) group(label string) (*group, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	g := w.groups[label]
	if g == nil {
		return nil, fmt.Errorf("no consumer group %s in this run", label) // runbook.Load rejects it first
	}
	return g, nil
}

// groupList is the run's groups in the order of their consume steps.
func (w *workload) groupList() []*group {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]*group, 0, len(w.groupOrder))
	for _, l := range w.groupOrder {
		out = append(out, w.groups[l])
	}
	return out
}

// flushGroups writes the members' pending reports, one event per group.
func (w *workload) flushGroups() {
	groups := w.groupList()
	for _, g := range groups {
		g.mu.Lock()
		evs := g.pending
		g.pending = nil
		g.mu.Unlock()
		if len(evs) > 0 {
			w.ev.Emit(results.KindConsumerEvents, w.num, results.ConsumerEventsEvent{Group: g.name, Events: evs})
		}
	}
}

// groupEvents are a group's members' reports, every one written to the
// evidence.
func (w *workload) groupEvents(g *group) []results.ConsumerEvent {
	w.flushGroups()
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.events)
}

// groupTally stores a group's tally input (a group_input event), derives
// the tally from it as a re-check of the evidence does, and records it.
func (w *workload) groupTally(g *group, in results.GroupInput, evs []results.ConsumerEvent) results.ConsumerTally {
	w.ev.Emit(results.KindGroupInput, w.num, in)
	t := in.Tally(evs)
	w.ev.Emit(results.KindConsumerTally, w.num, results.ConsumerTallyEvent{Group: g.name, Tally: t})
	g.tally = &t
	return t
}

var _ = handles(crashConsumer, runbook.OpCrashConsumer)

// crashConsumer: crash consumer G — SIGKILL, then a check that the
// process is gone.
func crashConsumer(ctx context.Context, w *workload, s runbook.Step, a runbook.CrashConsumer, log *stepLog) error {
	g, err := w.group(a.Group)
	if err != nil {
		return err
	}
	g.mu.Lock()
	m := g.running()
	if m != nil {
		m.killed = "crash consumer at " + s.Pos.String()
	}
	g.mu.Unlock()
	if m == nil {
		return fmt.Errorf("group %s has no running member to crash (start consumer %s starts one)", g.label, g.label)
	}
	if err := m.signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing member %d (pid %d): %w", m.n, m.pid, err)
	}
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
		return fmt.Errorf("member %d (pid %d) still runs 10s after SIGKILL", m.n, m.pid)
	}
	if err := m.signal(0); !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("member %d (pid %d) is not gone after SIGKILL: %v", m.n, m.pid, err)
	}
	log.line("killed member %d (pid %d) with SIGKILL; the process is gone", m.n, m.pid)
	return nil
}

var _ = handles(startConsumer, runbook.OpStartConsumer)

// startConsumer: start consumer G — a new member that resumes from the
// committed offsets.
func startConsumer(ctx context.Context, w *workload, s runbook.Step, a runbook.StartConsumer, log *stepLog) error {
	g, err := w.group(a.Group)
	if err != nil {
		return err
	}
	// The committed offsets the new member will resume from, asked as it
	// will ask them, once no member runs (the sampler asks only while one
	// does): the group's offsets sample nearest its start, -1 for a
	// partition without one. A question that fails leaves the sample out
	// and does not keep the member from starting.
	committed, _, _ := w.sampleOffsets(ctx, g)
	m, err := w.startMember(ctx, g, false)
	if err != nil {
		return err
	}
	log.line("member %d of group %s started (pid %d); committed offsets now: %s", m.n, g.label, m.pid, showOffsets(committed))
	for _, n := range m.notes {
		log.line("%s", n)
	}
	return nil
}

var _ = handles(stopConsumer, runbook.OpStopConsumer)

// stopConsumer: stop consumer G — SIGTERM: the member finishes its batch,
// commits as its mode does, and leaves the group.
func stopConsumer(ctx context.Context, w *workload, s runbook.Step, a runbook.StopConsumer, log *stepLog) error {
	g, err := w.group(a.Group)
	if err != nil {
		return err
	}
	m, err := w.stopMember(g, "stop consumer at "+s.Pos.String(), false)
	if err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("group %s has no running member to stop", g.label)
	}
	log.line("member %d (pid %d) stopped", m.n, m.pid)
	return nil
}

var _ = handles(waitConsumer, runbook.OpWaitConsumer)

// waitConsumer: wait consumer G — until the group's member has caught up
// (nothing unhandled in hand, committed offsets at the end of every
// partition), or has crashed: a member started with --crash-at is waited
// for until it crashes.
func waitConsumer(ctx context.Context, w *workload, s runbook.Step, wc runbook.WaitConsumer, log *stepLog) error {
	g, err := w.group(wc.Group)
	if err != nil {
		return err
	}
	return poll.Until(ctx, 200*time.Millisecond, wc.Timeout, log.progress, func(ctx context.Context) (bool, string, error) {
		g.mu.Lock()
		m, inHand := g.running(), len(g.inHand)
		var last *member
		if len(g.members) > 0 {
			last = g.members[len(g.members)-1]
		}
		frozen := last != nil && last.paused
		g.mu.Unlock()
		if m == nil {
			if last == nil {
				return false, "", fmt.Errorf("group %s has no member", g.label)
			}
			if frozen {
				return false, "", fmt.Errorf("group %s: member %d (pid %d) is frozen by pause consumer: resume consumer %s or start consumer %s first", g.label, last.n, last.pid, g.label, g.label)
			}
			how, why := last.how()
			if how == results.MemberCrashed {
				log.line("member %d (pid %d) crashed: %s", last.n, last.pid, why)
				return true, "", nil
			}
			return false, "", fmt.Errorf("group %s has no running member (member %d %s: %s): it would never catch up", g.label, last.n, how, why)
		}
		end, err := w.consumedEnd(ctx, g)
		if err != nil {
			return false, err.Error(), nil
		}
		committed, err := w.admin.Committed(ctx, g.name, g.topic.name)
		if err != nil {
			return false, err.Error(), nil
		}
		behind := 0
		for p, e := range end {
			behind += int(max(e-max(committed[p], 0), 0))
		}
		if behind == 0 && inHand == 0 {
			log.line("group %s caught up: committed %s", g.label, showOffsets(committed))
			return true, "", nil
		}
		return false, fmt.Sprintf("group %s: %d record(s) not committed, %d in hand", g.label, behind, inHand), nil
	})
}

var _ = handles(offsets, runbook.OpOffsets)

// offsets: offsets G — the committed offsets, asked of the cluster.
func offsets(ctx context.Context, w *workload, s runbook.Step, a runbook.Offsets, log *stepLog) error {
	g, err := w.group(a.Group)
	if err != nil {
		return err
	}
	committed, end, err := w.sampleOffsets(ctx, g)
	if err != nil {
		return err
	}
	for _, p := range slices.Sorted(maps.Keys(end)) {
		shown := "none"
		if c, ok := committed[p]; ok {
			shown = fmt.Sprint(c)
		}
		log.line("%s partition %d: committed %s, end %d", g.label, p, shown, end[p])
	}
	return nil
}

// sampleOffsets asks the cluster for a group's committed offsets and its
// topic's end offsets, and records them as one offsets sample (emitOffsets)
// once both are answered.
func (w *workload) sampleOffsets(ctx context.Context, g *group) (committed, end map[int32]int64, err error) {
	sent := time.Now().UTC()
	committed, err = w.admin.Committed(ctx, g.name, g.topic.name)
	at := time.Now().UTC()
	if err != nil {
		return nil, nil, err
	}
	end, err = w.admin.EndOffsets(ctx, g.topic.name)
	if err != nil {
		return committed, nil, err
	}
	w.emitOffsets(g, sent, at, committed, end)
	return committed, end, nil
}

// emitOffsets records one sample of a group's committed offsets, asked at
// sent and answered at at, of every partition of end: -1 where none is
// committed.
func (w *workload) emitOffsets(g *group, sent, at time.Time, committed, end map[int32]int64) {
	var samples []results.OffsetSample
	for _, p := range slices.Sorted(maps.Keys(end)) {
		c, ok := committed[p]
		if !ok {
			c = -1
		}
		samples = append(samples, results.OffsetSample{At: at, Sent: sent, Partition: p, Committed: c})
	}
	w.ev.Emit(results.KindOffsets, w.num, results.OffsetsEvent{Group: g.name, Samples: samples})
}

// liveGroups maps each group whose member runs to its topic, by their
// names in the cluster: the groups whose committed offsets the
// observation samples.
func (w *workload) liveGroups() map[string]string {
	live := map[string]string{}
	for _, g := range w.groupList() {
		g.mu.Lock()
		if g.running() != nil {
			live[g.name] = g.topic.name
		}
		g.mu.Unlock()
	}
	return live
}

// tallyGroups tallies every group once its members have stopped: their
// reports, the store and the committed offsets, asked of the cluster;
// what the tally is made of goes into the evidence first (groupTally).
func (w *workload) tallyGroups(ctx context.Context) error {
	for _, g := range w.groupList() {
		if g.transform != nil {
			if err := w.tallyTransform(ctx, g); err != nil {
				return err
			}
			continue
		}
		label := g.label
		committed, err := w.admin.Committed(ctx, g.name, g.topic.name)
		if err != nil {
			return err
		}
		contents, err := w.readStore(ctx, g)
		if err != nil {
			return err
		}
		evs := w.groupEvents(g)
		in := results.GroupInput{Group: g.name, At: time.Now().UTC(), Events: len(evs), Store: true,
			Applied: contents.Applied, Likes: contents.Likes, Handled: len(contents.Handled), Committed: committed, End: g.end}
		t := w.groupTally(g, in, evs)
		g.tally = &t
		w.con.printf("  group %s: delivered %d, applied %d, applied twice %d, skipped %d, unapplied %d, pending %d; committed %s\n",
			label, t.Delivered, t.Applied, len(t.AppliedTwice), len(t.Skipped), len(t.Unapplied), len(t.Pending), showOffsets(t.Committed))
		if len(t.Unapplied) > 0 {
			w.con.printf("    never applied although committed: %s\n", strings.Join(t.Unapplied, " "))
		}
		if t.StoreTotal != int64(t.Effects) {
			w.con.printf("    the store counts %d effects, the members reported %d: a member died between an effect and its report\n", t.StoreTotal, t.Effects)
		}
	}
	return w.evidenceErr()
}
