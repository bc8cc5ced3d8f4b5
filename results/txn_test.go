package results

import (
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// txnHistory is a constructed history: one producer "tx" writes three
// transactions of three records to partition 0, each followed by its
// marker: t1 committed (m-1..m-3 at 0..2), t2 aborted (m-4..m-6 at 4..6),
// t3 committed (m-7..m-9 at 8..10); the high watermark and last stable
// offset are 12.
func txnHistory() ([]Transaction, Topic) {
	txns := []Transaction{
		{Label: "t", TransactionalID: "tx", N: 1, ProducerID: 7, Epoch: 0, Outcome: TxnCommitted, IDs: []string{"m-1", "m-2", "m-3"}},
		{Label: "t", TransactionalID: "tx", N: 2, ProducerID: 7, Epoch: 0, Outcome: TxnAborted, AbortOnPurpose: true, IDs: []string{"m-4", "m-5", "m-6"}},
		{Label: "t", TransactionalID: "tx", N: 3, ProducerID: 7, Epoch: 0, Outcome: TxnCommitted, IDs: []string{"m-7", "m-8", "m-9"}},
	}
	ledger := Topic{Name: "t", Label: "t"}
	offsets := []int64{0, 1, 2, 4, 5, 6, 8, 9, 10}
	for i, off := range offsets {
		m := Message{ID: "m-" + strconv.Itoa(i+1), Acks: "all", Status: StatusOK, Partition: 0, Offset: off}
		if i >= 3 && i < 6 {
			m.Status, m.Offset = StatusFailed, -1
		}
		ledger.Messages = append(ledger.Messages, m)
	}
	return txns, ledger
}

// readOf is a read of partition 0 finding ids at offsets.
func readOf(isolation Isolation, bound int64, found map[string]int64) TxnRead {
	var recs []Record
	for id, off := range found {
		recs = append(recs, Record{ID: id, Partition: 0, Offset: off})
	}
	slices.SortFunc(recs, func(a, b Record) int { return int(a.Offset - b.Offset) })
	return TxnRead{Isolation: isolation, Records: RecordsOf(recs),
		HighWatermarks: map[int32]int64{0: 12}, LastStable: map[int32]int64{0: bound}}
}

var committedOnly = map[string]int64{"m-1": 0, "m-2": 1, "m-3": 2, "m-7": 8, "m-8": 9, "m-9": 10}

func quiet(t *testing.T, c TxnCheck) {
	t.Helper()
	if len(c.AbortedReads)+len(c.Torn)+len(c.LostCommitted)+len(c.OutOfOrder) > 0 {
		t.Errorf("a correct history gave findings: %+v", c)
	}
}

func TestCheckTransactionsCorrectHistoryIsQuiet(t *testing.T) {
	txns, ledger := txnHistory()
	c := CheckTransactions(txns, ledger, readOf(ReadCommitted, 12, committedOnly))
	quiet(t, c)
	if c.Committed != 2 || c.Aborted != 1 || c.SeenCommitted != 6 || c.SeenAborted != 0 {
		t.Errorf("counts: %+v", c)
	}
	// read_uncommitted sees the aborted records too: expected, no finding.
	all := map[string]int64{"m-4": 4, "m-5": 5, "m-6": 6}
	for id, off := range committedOnly {
		all[id] = off
	}
	c = CheckTransactions(txns, ledger, readOf(ReadUncommitted, 12, all))
	quiet(t, c)
	if c.SeenAborted != 3 {
		t.Errorf("read_uncommitted saw %d aborted records, want 3", c.SeenAborted)
	}
}

func TestCheckTransactionsAbortedRead(t *testing.T) {
	txns, ledger := txnHistory()
	found := map[string]int64{"m-5": 5}
	for id, off := range committedOnly {
		found[id] = off
	}
	c := CheckTransactions(txns, ledger, readOf(ReadCommitted, 12, found))
	want := []AbortedRead{{ID: "m-5", Partition: 0, Offset: 5,
		Txn: TxnRef{TransactionalID: "tx", N: 2, ProducerID: 7, Outcome: TxnAborted}}}
	if !slices.Equal(c.AbortedReads, want) {
		t.Errorf("aborted reads %+v, want %+v", c.AbortedReads, want)
	}
	if len(c.Torn)+len(c.LostCommitted) > 0 {
		t.Errorf("other findings: %+v", c)
	}
}

func TestCheckTransactionsTornAndLost(t *testing.T) {
	txns, ledger := txnHistory()
	found := map[string]int64{"m-1": 0, "m-2": 1, "m-3": 2, "m-7": 8, "m-9": 10} // m-8 missing
	c := CheckTransactions(txns, ledger, readOf(ReadCommitted, 12, found))
	if len(c.Torn) != 1 || c.Torn[0].Txn.N != 3 || !slices.Equal(c.Torn[0].Seen, []string{"m-7", "m-9"}) ||
		len(c.Torn[0].Missing) != 1 || c.Torn[0].Missing[0] != (Loss{ID: "m-8", Partition: 0, Offset: 9, HighWatermark: 12}) {
		t.Errorf("torn %+v", c.Torn)
	}
	if len(c.LostCommitted) != 1 || c.LostCommitted[0].ID != "m-8" {
		t.Errorf("lost committed %+v, want m-8", c.LostCommitted)
	}
	// A whole committed transaction missing is a lost write, not torn.
	found = map[string]int64{"m-1": 0, "m-2": 1, "m-3": 2}
	c = CheckTransactions(txns, ledger, readOf(ReadCommitted, 12, found))
	if len(c.Torn) != 0 || len(c.LostCommitted) != 3 {
		t.Errorf("torn %+v, lost %+v: want no torn, 3 lost", c.Torn, c.LostCommitted)
	}
}

// TestCheckTransactionsBelowBound: a record the read did not reach (the
// last stable offset short of it, its commit marker not yet written) is
// neither lost nor a tear.
func TestCheckTransactionsBelowBound(t *testing.T) {
	txns, ledger := txnHistory()
	found := map[string]int64{"m-1": 0, "m-2": 1, "m-3": 2, "m-7": 8}
	quiet(t, CheckTransactions(txns, ledger, readOf(ReadCommitted, 9, found)))
}

// TestCheckTransactionsJepsenShapes: the shapes Jepsen's analysis of Kafka
// transactions reports: a transaction torn across partitions (visible in
// one, missing from the other although the reader passed it), an aborted
// read of a transaction whose abort raced a retried produce, and one
// producer's writes out of order within a partition.
func TestCheckTransactionsJepsenShapes(t *testing.T) {
	txns := []Transaction{
		{TransactionalID: "a", N: 1, Outcome: TxnCommitted, IDs: []string{"m-1", "m-2"}},
		{TransactionalID: "a", N: 2, Outcome: TxnAborted, IDs: []string{"m-3"}},
		{TransactionalID: "b", N: 1, Outcome: TxnCommitted, IDs: []string{"m-4", "m-5"}},
		{TransactionalID: "c", N: 1, Outcome: TxnUnknown, IDs: []string{"m-6"}},
	}
	ledger := Topic{Messages: []Message{
		{ID: "m-1", Status: StatusOK, Partition: 0, Offset: 0},
		{ID: "m-2", Status: StatusOK, Partition: 1, Offset: 0},
		{ID: "m-3", Status: StatusFailed, Partition: 0, Offset: -1},
		{ID: "m-4", Status: StatusOK, Partition: 0, Offset: 5},
		{ID: "m-5", Status: StatusOK, Partition: 0, Offset: 6},
		{ID: "m-6", Status: StatusUnknown, Offset: -1},
	}}
	rd := TxnRead{Isolation: ReadCommitted, Records: RecordsOf([]Record{
		{ID: "m-1", Partition: 0, Offset: 0}, {ID: "m-3", Partition: 0, Offset: 2},
		{ID: "m-5", Partition: 0, Offset: 3}, {ID: "m-4", Partition: 0, Offset: 4},
		{ID: "m-6", Partition: 0, Offset: 7},
	}), HighWatermarks: map[int32]int64{0: 9, 1: 2}, LastStable: map[int32]int64{0: 9, 1: 2}}
	c := CheckTransactions(txns, ledger, rd)
	if len(c.Torn) != 1 || c.Torn[0].Txn.TransactionalID != "a" || c.Torn[0].Missing[0].Partition != 1 {
		t.Errorf("torn across partitions: %+v", c.Torn)
	}
	if ids := c.AbortedReadIDs(); !slices.Equal(ids, []string{"m-3"}) {
		t.Errorf("aborted reads %v, want [m-3]", ids)
	}
	want := OrderFlip{TransactionalID: "b", Partition: 0, Before: "m-4", BeforeOffset: 4, After: "m-5", AfterOffset: 3}
	if len(c.OutOfOrder) != 1 || c.OutOfOrder[0] != want {
		// m-4 was sent before m-5 but sits after it.
		t.Errorf("out of order %+v, want %+v", c.OutOfOrder, want)
	}
	if c.Unknown != 1 || c.SeenUnknown != 1 {
		t.Errorf("an unknown transaction seen is counted, not a finding: %+v", c)
	}
}

// TestTransactionsMeasuresAndReplay: transactions streamed to events.jsonl
// come back in the run, and the measures read them and the final tally.
func TestTransactionsMeasuresAndReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), EventsFileName)
	w, err := CreateEvents(path)
	if err != nil {
		t.Fatal(err)
	}
	txns, ledger := txnHistory()
	w.Emit(KindStart, 0, StartEvent{Title: "txn"})
	w.Emit(KindTransactions, 1, TransactionsEvent{Transactions: txns[:2]})
	w.Emit(KindTransactions, 1, TransactionsEvent{Transactions: txns[2:]})
	found := map[string]int64{"m-5": 5}
	for id, off := range committedOnly {
		found[id] = off
	}
	check := CheckTransactions(txns, ledger, readOf(ReadCommitted, 12, found))
	w.Emit(KindTally, 1, Tally{Label: "t", Final: true, Isolation: ReadCommitted, Transactions: []TxnCheck{check}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Replay(path)
	if err != nil {
		t.Fatal(err)
	}
	run := r.Runs[0]
	if len(run.Transactions) != 3 || run.Transactions[1].Outcome != TxnAborted || !run.Transactions[1].AbortOnPurpose {
		t.Fatalf("replayed transactions %+v", run.Transactions)
	}
	for name, want := range map[string]int64{"aborted_reads": 1, "torn": 0, "lost_committed": 0, "txn_order": 0,
		"txn_committed": 2, "txn_aborted": 1, "txn_unknown": 0} {
		m := FindMeasure(name)
		if m == nil {
			t.Fatalf("measure %s is not registered", name)
		}
		if v, ok := m.Of(run, "t"); !ok || v != want {
			t.Errorf("%s(t) = %d, %v; want %d", name, v, ok, want)
		}
	}
	if ids, _ := FindMeasure("aborted_reads").IDs(run, "t"); !slices.Equal(ids, []string{"m-5"}) {
		t.Errorf("aborted_reads ids %v", ids)
	}
}
