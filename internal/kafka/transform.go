package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TransformSpec is a consume-transform-produce member: it reads In in
// group Group and writes a derived record of each to Out.
type TransformSpec struct {
	In, Out, Group string
	// TxnID, when set, makes the member exactly-once: franz-go's
	// GroupTransactSession writes each poll's derived records and commits
	// its input offsets in one transaction under this transactional.id.
	// A successor with the same id fences its predecessor.
	TxnID string
}

// TransactionTimeout bounds a transform's open transaction: one its
// member left open by dying, with no successor to fence it, is aborted by
// the coordinator after this long.
const TransactionTimeout = 30 * time.Second

// Transformer is a transform member's client: a GroupTransactSession with
// a transactional id, or a plain group member whose producer is
// idempotent and whose offsets are committed after the records are
// written (at least once).
type Transformer struct {
	spec TransformSpec
	sess *kgo.GroupTransactSession // exactly once
	cl   *kgo.Client
	// failingSince is when the polls started failing, zero while they
	// do not.
	failingSince time.Time
}

// Derived is where a derived record was written.
type Derived struct {
	Partition int32
	Offset    int64
}

// NewTransformer creates the member; it joins the group when first
// polled. Both modes read In read_committed.
func NewTransformer(b Brokers, spec TransformSpec) (*Transformer, error) {
	opts := transformOpts(b, spec)
	t := &Transformer{spec: spec}
	if spec.TxnID == "" {
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return nil, err
		}
		t.cl = cl
		return t, nil
	}
	sess, err := kgo.NewGroupTransactSession(opts...)
	if err != nil {
		return nil, err
	}
	t.sess, t.cl = sess, sess.Client()
	return t, nil
}

// transformOpts are a transform member's options: a member's (memberOpts,
// committing itself), reading read_committed, writing to Out, and with a
// transactional id its transaction timeout. Everything else is franz-go's
// default (acks=all and idempotence included).
func transformOpts(b Brokers, spec TransformSpec) []kgo.Opt {
	opts := append(memberOpts(b, MemberSpec{Topic: spec.In, Group: spec.Group}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.DefaultProduceTopic(spec.Out),
	)
	if spec.TxnID != "" {
		opts = append(opts, kgo.TransactionalID(spec.TxnID), kgo.TransactionTimeout(TransactionTimeout))
	}
	return opts
}

// Poll waits for records and returns at most max of them, as
// Member.Poll does.
func (t *Transformer) Poll(ctx context.Context, max int) ([]Delivered, error) {
	var fs kgo.Fetches
	if t.sess != nil {
		fs = t.sess.PollRecords(ctx, max)
	} else {
		fs = t.cl.PollRecords(ctx, max)
	}
	errs, err := pollErrors(fs)
	if err != nil {
		return nil, err
	}
	var out []Delivered
	fs.EachRecord(func(r *kgo.Record) {
		out = append(out, Delivered{Partition: r.Partition, Offset: r.Offset, Key: string(r.Key), ID: string(IDOf(r.Value))})
	})
	if len(out) > 0 || len(errs) == 0 {
		t.failingSince = time.Time{}
		return out, nil
	}
	// A fetch or a join that failed (a broker killed, a coordinator
	// moving) is tried again by the client: the member rides it out as
	// its produce retries do, and gives up only when it lasts.
	if t.failingSince.IsZero() {
		t.failingSince = time.Now()
	}
	if time.Since(t.failingSince) < pollRideOut {
		select { // not a busy loop while the client retries
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
		return nil, nil
	}
	return nil, fmt.Errorf("polling failed for %s: %w", pollRideOut, errors.Join(errs...))
}

// pollRideOut is how long a transform member's polls may fail in a row
// before it gives up: long enough for a coordinator's failover (the
// controller notices a dead broker after its session timeout, then moves
// its partitions), which franz-go's own retries ride out.
const pollRideOut = 30 * time.Second

// Begin begins the transaction of a poll's records (exactly once only).
func (t *Transformer) Begin() error {
	if t.sess == nil {
		return nil
	}
	return t.sess.Begin()
}

// DerivedValue is the value of d's derived record: it starts with d's id,
// which is how a check finds the input of every output record.
func (t *Transformer) DerivedValue(d Delivered) string {
	return fmt.Sprintf("%s derived from %s partition %d offset %d", d.ID, t.spec.In, d.Partition, d.Offset)
}

// Send writes d's derived record to Out and waits for its ack (inside the
// open transaction when exactly once).
func (t *Transformer) Send(ctx context.Context, d Delivered) (Derived, error) {
	rec := &kgo.Record{Key: []byte(d.Key), Value: []byte(t.DerivedValue(d))}
	if d.Key == "" {
		rec.Key = nil
	}
	var res kgo.ProduceResults
	if t.sess != nil {
		res = t.sess.ProduceSync(ctx, rec)
	} else {
		res = t.cl.ProduceSync(ctx, rec)
	}
	r, err := res.First()
	if err != nil {
		return Derived{}, fmt.Errorf("writing the derived record of %s to %s: %w", d.ID, t.spec.Out, err)
	}
	return Derived{Partition: r.Partition, Offset: r.Offset}, nil
}

// End ends a poll's work: exactly once, it commits the transaction with
// the input offsets of every record polled (false when the session
// aborted it instead, after a rebalance); at least once, it commits those
// offsets after the records were written. It returns the offsets
// committed (the next record to read, per partition of In).
func (t *Transformer) End(ctx context.Context, recs []Delivered) (bool, map[int32]int64, error) {
	next := map[int32]int64{}
	for _, d := range recs {
		next[d.Partition] = max(next[d.Partition], d.Offset+1)
	}
	if t.sess != nil {
		committed, err := t.sess.End(ctx, kgo.TryCommit)
		if err != nil {
			return false, nil, fmt.Errorf("ending the transaction: %w", err)
		}
		if !committed {
			return false, nil, nil
		}
		return true, next, nil
	}
	offs := map[string]map[int32]kgo.EpochOffset{t.spec.In: {}}
	for p, o := range next {
		offs[t.spec.In][p] = kgo.EpochOffset{Epoch: -1, Offset: o}
	}
	var cerr error
	t.cl.CommitOffsetsSync(ctx, offs, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		cerr = commitError(resp, err)
	})
	if cerr != nil {
		return false, nil, cerr
	}
	return true, next, nil
}

// IsFenced reports whether err is what a transform member's producer gets
// once a successor with its transactional id has taken over: the
// coordinator's PRODUCER_FENCED, or a partition leader's
// INVALID_PRODUCER_EPOCH for a record of the old epoch.
func IsFenced(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch)
}

// Close leaves the group and closes the client.
func (t *Transformer) Close() {
	if t.sess != nil {
		t.sess.Close()
		return
	}
	t.cl.Close()
}

// commitError is the first error of an offset commit: the request's, or
// a partition's.
func commitError(resp *kmsg.OffsetCommitResponse, err error) error {
	if err != nil {
		return fmt.Errorf("committing offsets: %w", err)
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if e := kerr.ErrorForCode(p.ErrorCode); e != nil {
				return fmt.Errorf("committing %s partition %d: %w", t.Topic, p.Partition, e)
			}
		}
	}
	return nil
}
