package consumer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
)

// Spec is one franz-go member, as the engine asks franz-go's driver for
// it (driver.FranzGoMember).
type Spec struct {
	Brokers []string `json:"brokers"`
	// Access is how to reach the brokers (TLS, SASL); its Dial does not
	// travel: a member runs where the cluster's clients run.
	Access     cluster.Access `json:"access,omitempty"`
	Topic      string         `json:"topic"`
	Group      string         `json:"group"`
	Member     int            `json:"member"`
	Commit     string         `json:"commit"` // auto, after or before
	AutoCommit time.Duration  `json:"auto_commit"`
	Batch      int            `json:"batch"`
	Work       time.Duration  `json:"work"`
	Dedup      string         `json:"dedup"` // none, table or transactional
	CrashAt    int            `json:"crash_at"`
	CrashPoint string         `json:"crash_point"` // work, effect or handled
	Store      string         `json:"store"`       // the SQLite file
	// Handoff hands each record to one worker goroutine (handoff.go)
	// instead of handling it in the poll loop.
	Handoff bool `json:"handoff,omitempty"`
	// Transform makes the member a consume-transform-produce member
	// (transform.go) instead: no store, no dedup.
	Transform *TransformSpec `json:"transform,omitempty"`
}

// Commit modes, dedup modes and crash points, as the runbook writes them.
const (
	CommitAuto   = "auto"
	CommitGreedy = "greedy"
	CommitAfter  = "after"
	CommitBefore = "before"

	DedupNone          = "none"
	DedupTable         = "table"
	DedupTransactional = "transactional"

	CrashWork    = "work"
	CrashEffect  = "effect"
	CrashHandled = "handled"
)

// Serve runs the member spec says until ctx ends (a clean stop: it
// finishes the batch in hand, then leaves the group), reporting on out:
// a group member, or with spec.Transform a transform member. A crash
// (--crash-at) never returns: the process kills itself. franz-go's driver
// (internal/driver) runs it behind the driver protocol.
func Serve(ctx context.Context, spec Spec, out io.Writer) error {
	if spec.Transform != nil {
		return runTransform(ctx, spec, out)
	}
	return Run(ctx, spec, out)
}

// member is one running member: its client, its store and its report.
type member struct {
	spec  Spec
	kc    *kafka.Member
	store *Store

	mu  sync.Mutex
	out io.Writer
	n   int // records received
}

// memberSpec is the franz-go member of a consumer member (its commit
// callback aside).
func memberSpec(spec Spec) kafka.MemberSpec {
	ms := kafka.MemberSpec{Topic: spec.Topic, Group: spec.Group}
	if spec.Commit == CommitAuto || spec.Commit == CommitGreedy {
		ms.AutoCommit, ms.Greedy = spec.AutoCommit, spec.Commit == CommitGreedy
	}
	return ms
}

// InForce is the client entry of the member spec starts, for the
// evidence: franz-go's configuration in force, read back from a client
// built as the member builds its own, and what kafkabook set on it.
func InForce(spec Spec) (results.ClientInfo, error) {
	if spec.Transform != nil {
		return kafka.TransformInForce(spec.brokers(), transformSpec(spec))
	}
	return kafka.MemberInForce(spec.brokers(), memberSpec(spec))
}

// brokers is where the member's client connects.
func (spec Spec) brokers() kafka.Brokers {
	return kafka.Brokers{Seeds: spec.Brokers, Access: spec.Access}
}

// Run is the member: poll, handle each record as the spec says, report.
// When ctx ends it finishes the batch in hand, then leaves the group.
func Run(ctx context.Context, spec Spec, out io.Writer) error {
	m := &member{spec: spec, out: out}
	if err := m.openStore(); err != nil {
		return err
	}
	defer m.store.Close()
	ms := memberSpec(spec)
	if ms.AutoCommit > 0 {
		ms.OnCommit = m.autoCommitted
	}
	var err error
	if m.kc, err = kafka.JoinGroup(spec.brokers(), ms); err != nil {
		return err
	}
	defer m.kc.Close()
	// Handling a batch is not interrupted by the end of ctx: a clean stop
	// finishes what it was given, as a server draining would.
	work := context.WithoutCancel(ctx)
	if spec.Handoff {
		return m.runHandoff(ctx, work)
	}
	for ctx.Err() == nil {
		recs, err := m.kc.Poll(ctx, spec.Batch)
		if err != nil {
			return err
		}
		for _, d := range recs {
			m.report(results.EventDeliver, d, d.Offset)
		}
		for _, d := range recs {
			if err := m.handle(work, d, m.commit); err != nil {
				return err
			}
		}
	}
	return nil
}

// handle is the article's handler, in the order the spec's modes give:
// commit first (before), skip what event_handled knows (dedup), process,
// apply the effect, mark it handled (dedup table, in a second
// transaction), commit last (after). commit commits d's offset + 1; nil
// where the poll loop commits (handoff).
func (m *member) handle(ctx context.Context, d kafka.Delivered, commit func(context.Context, kafka.Delivered) error) error {
	if commit == nil {
		commit = func(context.Context, kafka.Delivered) error { return nil }
	}
	m.n++
	crash := m.spec.CrashAt == m.n
	event := eventID(d)
	if m.spec.Commit == CommitBefore {
		if err := commit(ctx, d); err != nil {
			return err
		}
	}
	seen, err := m.seen(ctx, d, event)
	if err != nil {
		return err
	}
	if seen {
		if m.spec.Commit == CommitAfter {
			return commit(ctx, d)
		}
		return nil
	}
	if crash && m.spec.CrashPoint == CrashWork {
		time.Sleep(m.spec.Work / 2)
		m.crash(d)
	}
	time.Sleep(m.spec.Work)
	if err := m.apply(ctx, d, event); err != nil {
		return err
	}
	if crash && m.spec.CrashPoint == CrashEffect {
		m.crash(d)
	}
	if err := m.markHandled(ctx, d, event); err != nil {
		return err
	}
	if crash && m.spec.CrashPoint == CrashHandled {
		m.crash(d)
	}
	if m.spec.Commit == CommitAfter {
		return commit(ctx, d)
	}
	return nil
}

func (m *member) commit(ctx context.Context, d kafka.Delivered) error {
	if err := m.kc.Commit(ctx, d); err != nil {
		return err
	}
	m.report(results.EventCommit, d, d.Offset+1)
	return nil
}

// autoCommitted reports what an auto-commit committed.
func (m *member) autoCommitted(offsets map[int32]int64, err error) {
	if err != nil {
		return // the next one retries; the admin API samples say what stuck
	}
	for p, o := range offsets {
		m.report(results.EventCommit, kafka.Delivered{Partition: p}, o)
	}
}

// crash reports the crash and kills the process with SIGKILL: no deferred
// function runs, no commit is sent, as when a server dies.
func (m *member) crash(d kafka.Delivered) {
	m.report(results.EventCrash, d, d.Offset)
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // SIGKILL cannot be caught; wait for it
}

// report writes one event as a line of JSON with one write call: a pipe
// keeps every whole line written before the process died.
func (m *member) report(kind string, d kafka.Delivered, offset int64) {
	ev := results.ConsumerEvent{
		At: time.Now().UTC(), Member: m.spec.Member, Kind: kind,
		Partition: d.Partition, Offset: offset, ID: d.ID,
	}
	if d.Event != "" && d.Event != d.ID {
		ev.Event = d.Event
	}
	line, _ := json.Marshal(ev) // plain data: cannot fail
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.out.Write(append(line, '\n')); err != nil && !errors.Is(err, os.ErrClosed) {
		fmt.Fprintf(os.Stderr, "member %d: reporting: %v\n", m.spec.Member, err)
	}
}

// openStore opens the group's store, m.store; the caller closes it.
func (m *member) openStore() error {
	store, err := OpenStore(m.spec.Store)
	if err != nil {
		return err
	}
	m.store = store
	return nil
}

// eventID is the id the store knows d's event by: its event-id header, or
// its message id when it has none.
func eventID(d kafka.Delivered) string {
	if d.Event != "" {
		return d.Event
	}
	return d.ID
}

// seen tells whether the dedup mode finds event in event_handled, and
// reports d skipped when it does; without dedup nothing is seen.
func (m *member) seen(ctx context.Context, d kafka.Delivered, event string) (bool, error) {
	if m.spec.Dedup == DedupNone || m.spec.Dedup == "" {
		return false, nil
	}
	seen, err := m.store.Handled(ctx, event)
	if err != nil {
		return false, fmt.Errorf("checking event_handled for %s: %w", event, err)
	}
	if seen {
		m.report(results.EventSkip, d, d.Offset)
	}
	return seen, nil
}

// apply applies d's effect to the store, with its event marked handled in
// the same transaction when the dedup mode is transactional, and reports
// it.
func (m *member) apply(ctx context.Context, d kafka.Delivered, event string) error {
	if err := m.store.Apply(ctx, d.Key, event, m.spec.Dedup == DedupTransactional); err != nil {
		return fmt.Errorf("applying %s: %w", d.ID, err)
	}
	m.report(results.EventEffect, d, d.Offset)
	return nil
}

// markHandled records the event as handled as the dedup mode says: with
// table, an insert into event_handled in a transaction of its own (the
// article's order, with its window after the effect); with transactional,
// the effect's transaction already did it.
func (m *member) markHandled(ctx context.Context, d kafka.Delivered, event string) error {
	switch m.spec.Dedup {
	case DedupTable:
		if err := m.store.MarkHandled(ctx, event); err != nil {
			return fmt.Errorf("inserting %s into event_handled: %w", event, err)
		}
		m.report(results.EventHandled, d, d.Offset)
	case DedupTransactional:
		m.report(results.EventHandled, d, d.Offset)
	}
	return nil
}
