package driver

import (
	"github.com/kafkabook/kafkabook/internal/driver/wire"
	"maps"
	"slices"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
)

// txnRecords holds a transactional driver's send outcomes until their
// transaction ends: a record's send succeeding says nothing of its fate,
// which is its transaction's (kafka.SettleTxn), as on franz-go's path.
type txnRecords struct {
	pending map[int]Result // by message number
	last    int            // the number of the last transaction that ended
	settled int            // the highest message number an ended transaction held
}

// take holds a record's send outcome until its transaction ends. One that
// comes after (a late delivery report: librdkafka serves them after its
// fatal error) is dropped: the transaction gave the record its fate and
// reported it, and the record is in no other transaction.
func (t *txnRecords) take(r Result) {
	if r.Num <= t.settled {
		return
	}
	t.pending[r.Num] = r
}

// txnResult is the transaction a transaction_end line reports, its times
// on kafkabook's clock (start is the start command's).
func (p *Producer) txnResult(start time.Time, ev *wire.Event) kafka.TxnResult {
	x := kafka.TxnResult{N: int(ev.Txn), ProducerID: ev.ProducerID, Epoch: int16(ev.Epoch),
		Outcome: results.TxnOutcome(ev.Outcome), OnPurpose: ev.OnPurpose, Err: ev.Error,
		Start: start.Add(time.Duration(ev.StartNS)), End: start.Add(time.Duration(ev.EndNS))}
	switch x.Outcome {
	case results.TxnCommitted, results.TxnAborted:
	default:
		x.Outcome = results.TxnUnknown
	}
	for n := ev.First; n < ev.First+ev.Count; n++ {
		x.Nums = append(x.Nums, int(n))
	}
	return x
}

// settle gives the records of x their fate and reports them, then x.
func (t *txnRecords) settle(x kafka.TxnResult, onResult func(Result), onTxn func(kafka.TxnResult)) {
	recs := make([]Result, 0, len(x.Nums))
	for _, n := range x.Nums {
		r, ok := t.pending[n]
		if !ok { // the driver ended the transaction without the record's outcome
			r = Result{Num: n, Status: results.StatusUnknown, Partition: -1, Offset: -1}
		}
		delete(t.pending, n)
		recs = append(recs, r)
		t.settled = max(t.settled, n)
	}
	kafka.SettleTxn(x, recs)
	for _, r := range recs {
		onResult(r)
	}
	t.last = x.N
	if onTxn != nil {
		onTxn(x)
	}
}

// open settles the records of a transaction the driver never reported
// the end of (it crashed, or the run stopped it mid-transaction): its
// outcome is unknown, and the final read says which way it went.
func (t *txnRecords) open(end time.Time, onResult func(Result), onTxn func(kafka.TxnResult)) {
	if len(t.pending) == 0 {
		return
	}
	nums := slices.Sorted(maps.Keys(t.pending))
	x := kafka.TxnResult{N: t.last + 1, Nums: nums, ProducerID: -1, Epoch: -1, Outcome: results.TxnUnknown,
		Err: "the driver ended before the transaction did", Start: end, End: end}
	if r := t.pending[nums[0]]; !r.Intended.IsZero() {
		x.Start = r.Intended
	}
	t.settle(x, onResult, onTxn)
}
