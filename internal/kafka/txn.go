package kafka

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TxnSpec makes a producer transactional: its records go out in
// transactions of Size, every AbortEvery-th aborted on purpose.
type TxnSpec struct {
	ID         string // the transactional.id
	Size       int    // records per transaction; the last may hold fewer
	AbortEvery int    // abort the K-th, 2K-th, ... transaction; 0: none
}

// TxnResult is how one transaction ended, as the producer saw it.
type TxnResult struct {
	N          int   // 1-based
	Nums       []int // message numbers, in the order they were sent
	ProducerID int64 // -1 when no record came back with one
	Epoch      int16 // -1 likewise
	Outcome    results.TxnOutcome
	OnPurpose  bool   // aborted because AbortEvery chose it
	Err        string // why it was aborted against the plan, or is unknown
	Start, End time.Time
}

// ProduceTransactional sends messages like Produce, in transactions: it
// begins one, hands it Size messages on the schedule, waits for their
// results, then commits it, or aborts it when AbortEvery chooses it or a
// record failed. Records learn their fate from the transaction's end, so
// onResult is called for a transaction's records after it ended: ok with
// their offsets when it committed (latency counts to the commit), failed
// when it was aborted, unknown when the end got no definite answer. Then
// onTxn gets the transaction. When a transaction's end fails the producer
// cannot go on (its transactional state is unknown), so it stops, and
// ProduceStats.Stopped says why.
func ProduceTransactional(ctx context.Context, b Brokers, spec ProduceSpec, txn TxnSpec, onResult func(Result), onTxn func(TxnResult)) (ProduceStats, error) {
	var stats ProduceStats
	if txn.Size < 1 || txn.ID == "" {
		return stats, fmt.Errorf("transactional producer %q with %d records per transaction: want an id and 1 or more", txn.ID, txn.Size)
	}
	config, cl, err := newProducer(b, spec, &txn)
	if err != nil {
		return stats, err
	}
	defer cl.Close()

	pace := newPacer(spec.Rate, &stats)
	for first, n := 0, 1; first < spec.Count && ctx.Err() == nil; first, n = first+txn.Size, n+1 {
		if err := cl.BeginTransaction(); err != nil {
			stats.Stopped = fmt.Sprintf("transaction %d did not begin: %s", n, errText(err))
			break
		}
		t := &openTxn{res: TxnResult{N: n, ProducerID: -1, Epoch: -1, Start: time.Now()}}
		for i := first; i < min(first+txn.Size, spec.Count); i++ {
			intended, ok := pace.wait(ctx, i)
			if !ok {
				break
			}
			t.send(ctx, cl, spec, config, spec.From+i, intended)
			pace.sent(intended)
		}
		res, recs := t.end(ctx, cl, config, txn.AbortEvery > 0 && n%txn.AbortEvery == 0)
		for _, r := range recs {
			onResult(r)
		}
		onTxn(res)
		if res.Outcome == results.TxnUnknown {
			stats.Stopped = fmt.Sprintf("transaction %d ended without a definite answer: %s", n, res.Err)
			break
		}
	}
	return stats, nil
}

// openTxn is a transaction being written: its records' results as they
// arrive, and the first error among them.
type openTxn struct {
	mu       sync.Mutex
	wg       sync.WaitGroup
	res      TxnResult
	recs     []Result
	firstErr error
}

// send hands message n to the client inside the transaction.
func (t *openTxn) send(ctx context.Context, cl *kgo.Client, spec ProduceSpec, config clientconfig.FranzGoProducer, n int, intended time.Time) {
	t.mu.Lock()
	j := len(t.recs)
	t.recs = append(t.recs, Result{Num: n, Intended: intended, Status: results.StatusUnknown, Offset: -1})
	t.res.Nums = append(t.res.Nums, n)
	t.mu.Unlock()
	t.wg.Add(1)
	cl.Produce(ctx, spec.record(n), func(r *kgo.Record, err error) {
		defer t.wg.Done()
		t.mu.Lock()
		defer t.mu.Unlock()
		t.recs[j] = result(n, config, intended, time.Now(), r, err, ctx)
		if err != nil && t.firstErr == nil {
			t.firstErr = err
		}
		if err == nil && t.res.ProducerID < 0 {
			t.res.ProducerID, t.res.Epoch = r.ProducerID, r.ProducerEpoch
		}
	})
}

// txnEndWait bounds the end of a transaction when the producer has no
// delivery timeout: kafkabook's wait for the answer, not an option of the
// client (a transaction left open is aborted by its coordinator after
// transaction.timeout.ms, franz-go's default 40 s).
const txnEndWait = 2 * time.Minute

// end waits for the transaction's records and ends it: a commit unless
// abort is asked for or a record failed. It returns the transaction's
// outcome and its records' results as that outcome makes them. The end
// runs on a context of its own, bounded by the delivery timeout, so that
// a run ending meanwhile still settles the transaction.
func (t *openTxn) end(ctx context.Context, cl *kgo.Client, config clientconfig.FranzGoProducer, abort bool) (TxnResult, []Result) {
	t.wg.Wait() // every record has its result: Produce fails them when ctx ends
	bound := config.DeliveryTimeout
	if bound <= 0 {
		bound = txnEndWait // no delivery timeout: franz-go's default
	}
	endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bound)
	defer cancel()
	t.mu.Lock()
	defer t.mu.Unlock()
	commit := !abort && t.firstErr == nil && ctx.Err() == nil
	var err error
	if commit {
		err = cl.EndTransaction(endCtx, kgo.TryCommit)
	} else {
		err = cl.EndTransaction(endCtx, kgo.TryAbort)
	}
	t.res.End = time.Now()
	switch {
	case err != nil:
		t.res.Outcome, t.res.Err = results.TxnUnknown, errText(err)
	case commit:
		t.res.Outcome = results.TxnCommitted
	default:
		t.res.Outcome, t.res.OnPurpose = results.TxnAborted, abort
		if !abort {
			cause := ctx.Err()
			if t.firstErr != nil {
				cause = t.firstErr
			}
			t.res.Err = errText(cause)
		}
	}
	SettleTxn(t.res, t.recs)
	return t.res, t.recs
}

// SettleTxn gives the records of transaction x the fate of its end, in
// place: ok with their offsets when it committed (acknowledged by the
// commit: Done is its end), failed when it was aborted, unknown when its
// end got no definite answer; a record without an error of its own gets
// the transaction's. Every client's transactional path settles its
// records through it, so their ledgers mean the same.
func SettleTxn(x TxnResult, recs []Result) {
	why := ""
	switch {
	case x.Outcome == results.TxnUnknown:
		why = "transaction outcome unknown: " + x.Err
	case x.Outcome == results.TxnAborted && x.OnPurpose:
		why = "transaction aborted on purpose"
	case x.Outcome == results.TxnAborted:
		why = "transaction aborted: " + x.Err
	}
	for i := range recs {
		r := &recs[i]
		switch x.Outcome {
		case results.TxnCommitted:
			r.Done = x.End
		case results.TxnAborted:
			r.Status, r.Offset, r.Done = results.StatusFailed, -1, x.End
		default:
			r.Status, r.Offset, r.Done = results.StatusUnknown, -1, time.Time{}
		}
		if r.Status != results.StatusOK && r.Err == "" {
			r.Err = why
		}
	}
}

// WaitStable waits, up to limit, until the last stable offset of each
// partition of topic is past the offset past names for it: every
// transaction that began below it has ended, so a read_committed reader
// reaches it. It returns the last stable offsets it saw last, and an error
// naming the partitions still held back when limit passed.
func WaitStable(ctx context.Context, b Brokers, topic string, past map[int32]int64, limit time.Duration, progress poll.Progress) (map[int32]int64, error) {
	cl, err := kgo.NewClient(observerOpts(b)...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	var lso map[int32]int64
	err = poll.Until(ctx, 200*time.Millisecond, limit, progress, func(ctx context.Context) (bool, string, error) {
		var err error
		if lso, err = lastStable(ctx, adm, topic); err != nil {
			return false, "", err
		}
		for p, off := range past {
			if lso[p] <= off {
				return false, fmt.Sprintf("waiting for the last stable offset of %s partition %d (now %d) to pass %d: a transaction is still open", topic, p, lso[p], off), nil
			}
		}
		return true, "", nil
	})
	if err != nil {
		return lso, fmt.Errorf("last stable offset of %s did not pass %s within %s (now %s): a transaction stayed open: %w", topic, showHW(past), limit, showHW(lso), err)
	}
	return lso, nil
}
