package consumer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
)

// TransformSpec is a consume-transform-produce member (transform IN --to
// OUT): the member process runs it instead of the consumer when
// Spec.Transform is set. It shares the member's reports: deliver for each
// input record polled, effect once its derived record is written to Out
// (acknowledged; inside the open transaction with EOS), commit for the
// input offsets committed (with EOS: by the transaction's commit), abort
// for each record of a transaction the session aborted, crash.
type TransformSpec struct {
	In    string        `json:"in"`
	Out   string        `json:"out"`
	EOS   bool          `json:"eos"`
	TxnID string        `json:"txn_id,omitempty"` // with EOS: the transactional.id every member of the group shares
	Batch int           `json:"batch"`
	Work  time.Duration `json:"work"`
	// Effect also applies each record's effect to the group's store
	// (Spec.Store), guarded by Spec.Dedup as a consume member's is, once
	// its derived record is written: an effect no transaction covers.
	Effect bool `json:"effect,omitempty"`
}

// transformSpec is the franz-go transformer of a transform member.
func transformSpec(spec Spec) kafka.TransformSpec {
	ts := *spec.Transform
	ks := kafka.TransformSpec{In: ts.In, Out: ts.Out, Group: spec.Group}
	if ts.EOS {
		ks.TxnID = ts.TxnID
	}
	return ks
}

// runTransform is the transform member: poll up to Batch records, write a
// derived record of each, then commit their input offsets, in the
// transaction of the poll with EOS, after the writes without. --crash-at
// N kills the process right after the N-th derived record was written,
// before its poll's commit.
func runTransform(ctx context.Context, spec Spec, out io.Writer) error {
	ts := *spec.Transform
	m := &member{spec: spec, out: out}
	if ts.Effect {
		if err := m.openStore(); err != nil {
			return err
		}
		defer m.store.Close()
	}
	ks := transformSpec(spec)
	for restarts := 0; ; restarts++ {
		t, err := kafka.NewTransformer(spec.brokers(), ks)
		if err != nil {
			return err
		}
		err = m.transform(ctx, t, ts)
		if kafka.IsFenced(err) {
			// A successor with the same transactional.id took over while
			// this member was frozen: it is a zombie, and stops without
			// closing (its session would only try to abort again).
			m.fenced(err)
			return nil
		}
		t.Close()
		var end endError
		if !errors.As(err, &end) || restarts == maxSessionRestarts || ctx.Err() != nil {
			return err
		}
		// franz-go returns no retryable error from ending a transaction:
		// after one (its coordinator unreachable past every retry), the
		// session is done. As an application would, the member starts a
		// new one under the same transactional.id, which aborts the open
		// transaction unless it committed, and polls on from the group's
		// committed offsets: its records come again only if they did not
		// commit.
		fmt.Fprintf(os.Stderr, "member %d of group %s: a new transactional session after: %v\n", spec.Member, spec.Group, err)
	}
}

// maxSessionRestarts bounds how often a transform member starts a new
// session after failing to end a transaction.
const maxSessionRestarts = 3

// endError is a failure to end a poll's transaction (or, without --eos,
// to commit its offsets), after which a new session can go on.
type endError struct{ err error }

func (e endError) Error() string { return e.err.Error() }
func (e endError) Unwrap() error { return e.err }

// writeError is a failure to write the derived record of the record ID.
type writeError struct {
	id  string
	err error
}

func (e writeError) Error() string { return e.err.Error() }
func (e writeError) Unwrap() error { return e.err }

// fenced reports the error that fenced the member's producer, and the
// record whose derived write it refused when it came at a write: that
// write's first attempt may still be in Out's log, in the transaction
// the successor aborted.
func (m *member) fenced(err error) {
	ev := results.ConsumerEvent{At: time.Now().UTC(), Member: m.spec.Member, Kind: results.EventFenced, Partition: -1, Offset: -1, Error: err.Error()}
	if w, ok := errors.AsType[writeError](err); ok {
		ev.ID = w.id
	}
	line, _ := json.Marshal(ev) // plain data: cannot fail
	m.mu.Lock()
	defer m.mu.Unlock()
	m.out.Write(append(line, '\n'))
}

// transform is the poll loop of runTransform.
func (m *member) transform(ctx context.Context, t *kafka.Transformer, ts TransformSpec) error {
	spec := m.spec
	work := context.WithoutCancel(ctx)
	for ctx.Err() == nil {
		recs, err := t.Poll(ctx, ts.Batch)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			continue
		}
		for _, d := range recs {
			m.report(results.EventDeliver, d, d.Offset)
		}
		if err := t.Begin(); err != nil {
			return fmt.Errorf("beginning a transaction: %w", err)
		}
		for _, d := range recs {
			m.n++
			time.Sleep(ts.Work)
			if _, err := t.Send(work, d); err != nil {
				return writeError{id: d.ID, err: err}
			}
			if ts.Effect {
				if err := m.storeEffect(work, d); err != nil {
					return err
				}
			} else {
				m.report(results.EventEffect, d, d.Offset)
			}
			if spec.CrashAt == m.n {
				m.crash(d)
			}
		}
		committed, next, err := t.End(work, recs)
		if err != nil {
			if kafka.IsFenced(err) || !ts.EOS {
				return err
			}
			return endError{err}
		}
		if !committed {
			// The group rebalanced (or the commit of the offsets failed):
			// the session aborted the transaction, the records come again.
			for _, d := range recs {
				m.report(results.EventAbort, d, d.Offset)
			}
			continue
		}
		for p, o := range next {
			m.report(results.EventCommit, kafka.Delivered{Partition: p}, o)
		}
	}
	return nil
}

// storeEffect applies d's effect to the group's store the way a consume
// member's handler does, less the commit (the transform's is its poll's):
// skipped when the dedup mode finds its event id in event_handled, else
// applied, and marked handled in a second transaction (table) or in the
// effect's own (transactional).
func (m *member) storeEffect(ctx context.Context, d kafka.Delivered) error {
	event := eventID(d)
	if seen, err := m.seen(ctx, d, event); err != nil || seen {
		return err
	}
	if err := m.apply(ctx, d, event); err != nil {
		return err
	}
	return m.markHandled(ctx, d, event)
}
