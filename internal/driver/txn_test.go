package driver

import (
	"github.com/kafkabook/kafkabook/internal/driver/wire"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
)

// TestTxnRecords: a transactional driver's send outcomes wait for their
// transaction's end and take its fate, and a transaction the driver never
// ended leaves its records unknown, with a transaction of its own, and a
// report that comes after its transaction ended changes nothing.
func TestTxnRecords(t *testing.T) {
	start := time.Unix(100, 0)
	p := &Producer{}
	tr := &txnRecords{pending: map[int]Result{}}
	for n := 1; n <= 6; n++ {
		tr.pending[n] = Result{Num: n, Status: results.StatusOK, Partition: 0, Offset: int64(n - 1), Intended: start}
	}
	var got []Result
	var txns []kafka.TxnResult
	onResult := func(r Result) { got = append(got, r) }
	onTxn := func(x kafka.TxnResult) { txns = append(txns, x) }
	tr.settle(p.txnResult(start, &wire.Event{Txn: 1, First: 1, Count: 2, Outcome: "committed", ProducerID: 7, Epoch: 0, EndNS: 5e6}), onResult, onTxn)
	tr.settle(p.txnResult(start, &wire.Event{Txn: 2, First: 3, Count: 2, Outcome: "aborted", OnPurpose: true, ProducerID: 7, Epoch: 1, EndNS: 9e6}), onResult, onTxn)
	// A report that comes after its transaction ended is no record of
	// another transaction.
	tr.take(Result{Num: 4, Status: results.StatusFailed, Partition: -1, Offset: -1, Intended: start})
	tr.open(start.Add(time.Second), onResult, onTxn)
	want := []results.Status{results.StatusOK, results.StatusOK, results.StatusFailed, results.StatusFailed, results.StatusUnknown, results.StatusUnknown}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d: %+v", len(got), len(want), got)
	}
	for i, r := range got {
		if r.Num != i+1 || r.Status != want[i] {
			t.Errorf("result %d: m-%d %s, want m-%d %s", i, r.Num, r.Status, i+1, want[i])
		}
	}
	if got[0].Offset != 0 || !got[0].Done.Equal(start.Add(5*time.Millisecond)) {
		t.Errorf("committed record: offset %d done %v, want 0 at the commit", got[0].Offset, got[0].Done)
	}
	if got[2].Offset != -1 || got[2].Err != "transaction aborted on purpose" {
		t.Errorf("aborted record: offset %d err %q", got[2].Offset, got[2].Err)
	}
	if len(txns) != 3 || txns[2].N != 3 || txns[2].Outcome != results.TxnUnknown || len(txns[2].Nums) != 2 || txns[1].Epoch != 1 || txns[0].ProducerID != 7 {
		t.Errorf("transactions %+v: want 1 committed, 2 aborted, 3 unknown of m-5 and m-6", txns)
	}
}
