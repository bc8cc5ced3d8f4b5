package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kgo"
)

// txnTimeoutRunbook: a transactional Java producer with a 5 s
// transaction timeout is frozen (SIGSTOP) 3 s into its first transaction
// of 20 records at 5 a second, for 20 s: longer than the timeout plus the
// coordinator's 10 s sweep for timed-out transactions
// (transaction.abort.timed.out.transaction.cleanup.interval.ms).
const txnTimeoutRunbook = "---\ntitle: txn timeout\nnodes: 1\nrepeat: 1\n---\n" + "```kafka" + `
topic create t --replication-factor 1
produce t --acks all --count 20 --rate 5/s --transactional --txn-size 20 --client java -X transaction.timeout.ms=5000 &
sleep 3s
pause producer t
sleep 20s
resume producer t
wait producers --timeout 60s
read t --isolation read_committed
expect txn_committed(t) == 0
expect aborted_reads(t) == 0
` + "```\n"

// TestTransactionTimeout: the coordinator aborts the frozen producer's
// transaction on its timeout; once resumed, the producer's transaction
// does not commit (its end is unknown or aborted, with the error), and
// neither the run's read_committed read nor the test's own reader finds
// any of its records, which read_uncommitted does find.
func TestTransactionTimeout(t *testing.T) {
	backend, st := sharedOne(t)
	start := time.Now()
	res, err := runWithClient(t, backend, "franz-go", txnTimeoutRunbook)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run := res.Runs[0]
	allHeld(t, run)
	txns := run.TransactionsOf("t")
	if len(txns) == 0 {
		t.Fatal("no transaction recorded")
	}
	first := txns[0]
	if first.Outcome == results.TxnCommitted || first.Error == "" {
		t.Errorf("transaction 1: %s (%q), want it not committed and its error recorded", first.Outcome, first.Error)
	}
	t.Logf("transaction 1: %s, %d records, producer %d epoch %d: %s", first.Outcome, len(first.IDs), first.ProducerID, first.Epoch, first.Error)
	// The coordinator's line, kept with the run's broker lines.
	var timedOut []string
	for _, l := range run.Logs {
		if strings.Contains(l.Text, first.TransactionalID) && strings.Contains(l.Text, "due to timeout") {
			timedOut = append(timedOut, l.Text)
		}
	}
	if len(timedOut) == 0 {
		t.Errorf("no broker line of the run says the coordinator rolled back %s on its timeout", first.TransactionalID)
	}
	t.Logf("the coordinator: %q", timedOut)
	name := run.Transactions[0].Topic
	if got := readAllIDs(t, st.Bootstrap(), name, kgo.ReadCommitted()); len(got) != 1 || !results.IsSentinel(got[0]) {
		t.Errorf("independent read_committed of t: %v, want the final read's sentinel alone", got)
	}
	if got := readAllIDs(t, st.Bootstrap(), name, kgo.ReadUncommitted()); len(got) == 0 {
		t.Errorf("independent read_uncommitted of t: nothing, want the frozen transaction's records")
	} else {
		t.Logf("read_uncommitted: %v", got)
	}
	t.Logf("%s", time.Since(start).Round(time.Second))
}
