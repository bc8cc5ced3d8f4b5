package engine_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// txnRunbook: 20 messages over two partitions in transactions of 4, the
// 2nd and 4th aborted on purpose (m-005..m-008, m-013..m-016), through
// the client %s names (a produce step's --client, empty for franz-go).
const txnRunbook = "---\ntitle: transactions\nnodes: 1\nrepeat: 1\n---\n" + "```kafka" + `
topic create tx --replication-factor 1 --partitions 2
produce tx --acks all --count 20 --keys 4 --transactional --txn-size 4 --abort-every 2%s
read tx --isolation read_committed
read tx
expect aborted_reads(tx) == 0
expect torn(tx) == 0
expect lost_committed(tx) == 0
expect txn_order(tx) == 0
expect txn_committed(tx) == 3
expect txn_aborted(tx) == 2
expect acked(tx) == 12
expect failed(tx) == {m-005..m-008, m-013..m-016}
expect lost(tx) == 0
` + "```\n"

// TestTransactionsReadCommitted runs a transactional producer with
// aborts on a real cluster, through each client that makes transactions,
// and checks the evidence against an independent reader of its own (a
// franz-go consumer with the isolation level set): read_committed never
// returns a record of an aborted transaction, read_uncommitted does, and
// the run's evidence records each transaction's outcome, producer id and
// epoch, both final views, and the cluster's transaction.version as the
// test's own ApiVersions request finds it.
func TestTransactionsReadCommitted(t *testing.T) {
	backend, st := sharedOne(t)
	features := finalizedFeatures(t, st.Bootstrap())
	t.Logf("the cluster's finalized features (ApiVersions): %v", features)
	for _, client := range []string{"franz-go", "java", "librdkafka"} {
		t.Run(client, func(t *testing.T) {
			flag := ""
			if client != "franz-go" {
				flag = " --client " + client
			}
			checkTxnRun(t, backend, st, fmt.Sprintf(txnRunbook, flag), features, client != "librdkafka")
		})
	}
}

// checkTxnRun runs src, txnRunbook through one client, and checks its
// evidence and the topic it wrote.
// bumps says whether the client speaks transaction.version 2's protocol,
// which bumps the producer epoch at every transaction's end (KIP-890):
// franz-go 1.22 and kafka-clients 4.3 do; librdkafka 2.16 keeps its epoch.
func checkTxnRun(t *testing.T, backend cluster.Backend, st cluster.Status, src string, features map[string]int16, bumps bool) {
	res, dir, out, err := runRunbook(t, backend, t.TempDir(), "txn.md", src)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if got := res.Provenance.Features; !maps.Equal(got, features) {
		t.Errorf("provenance features %v, want the cluster's %v", got, features)
	}
	if v, ok := res.Provenance.TransactionVersion(); !ok || v != features["transaction.version"] || v != 2 {
		t.Errorf("provenance transaction.version %d (recorded %v), want the cluster's %d, which is 2 on every release 4.0.0 to 4.4.0 formatted by kafkabook", v, ok, features["transaction.version"])
	}
	run := res.Runs[0]
	allHeld(t, run)
	aborted := []string{"m-005", "m-006", "m-007", "m-008", "m-013", "m-014", "m-015", "m-016"}
	var committed []string
	for n := 1; n <= 20; n++ {
		if id := kafka.MessageID(n); !slices.Contains(aborted, id) {
			committed = append(committed, id)
		}
	}

	// The transactions in the evidence.
	if len(run.Transactions) != 5 {
		t.Fatalf("%d transactions in the evidence, want 5: %+v", len(run.Transactions), run.Transactions)
	}
	for i, x := range run.Transactions {
		t.Logf("transaction %d %s..%s %s: producer id %d, epoch %d", x.N, x.IDs[0], x.IDs[len(x.IDs)-1], x.Outcome, x.ProducerID, x.Epoch)
		// transaction.version 2 (KIP-890) bumps the epoch at every
		// transaction's end: each one is written with the next epoch.
		if i > 0 && bumps && features["transaction.version"] >= 2 && x.Epoch != run.Transactions[i-1].Epoch+1 {
			t.Errorf("transaction %d has epoch %d after %d: transaction.version 2 bumps it by one per transaction", x.N, x.Epoch, run.Transactions[i-1].Epoch)
		}
		if i > 0 && !bumps && x.Epoch != run.Transactions[0].Epoch {
			t.Errorf("transaction %d has epoch %d, the first %d: this client was measured keeping its epoch", x.N, x.Epoch, run.Transactions[0].Epoch)
		}
		want := results.TxnCommitted
		if i%2 == 1 {
			want = results.TxnAborted
		}
		if x.N != i+1 || x.Outcome != want || x.ProducerID < 0 || x.Epoch < 0 || len(x.IDs) != 4 || x.IDs[0] != kafka.MessageID(4*i+1) {
			t.Errorf("transaction %d = %+v, want %s with 4 ids from %s and a producer id", i+1, x, want, kafka.MessageID(4*i+1))
		}
		if x.ProducerID != run.Transactions[0].ProducerID || !strings.HasPrefix(x.TransactionalID, "kafkabook-"+run.Topics[0].Name) {
			t.Errorf("transaction %d: producer %s/%d, want the step's one producer", i+1, x.TransactionalID, x.ProducerID)
		}
	}

	// events.jsonl alone gives the same transactions.
	replayed, err := results.Replay(filepath.Join(dir, results.EventsFileName))
	if err != nil {
		t.Fatal(err)
	}
	if got := replayed.Runs[0].Transactions; !reflect.DeepEqual(got, run.Transactions) {
		t.Errorf("events.jsonl replays to transactions %+v, want %+v", got, run.Transactions)
	}

	// The final read: read_committed's tally, both views checked.
	final, ok := run.Tally("tx")
	if !ok || !final.Final || final.Isolation != results.ReadCommitted || len(final.Transactions) != 2 {
		t.Fatalf("final tally %+v: want read_committed with two transaction checks", final)
	}
	if final.Acked != 12 || final.Present != 12 || len(final.Lost) != 0 || len(final.FailedPresent) != 0 {
		t.Errorf("final: acked %d present %d lost %v failed present %v; want 12, 12, none, none", final.Acked, final.Present, final.Lost, final.FailedPresent)
	}
	views := map[results.Isolation]results.TxnCheck{}
	for _, c := range final.Transactions {
		views[c.Isolation] = c
		if len(c.AbortedReads)+len(c.Torn)+len(c.LostCommitted)+len(c.OutOfOrder) > 0 {
			t.Errorf("%s: findings on a correct run: %+v", c.Isolation, c)
		}
		for p, hw := range c.HighWatermarks {
			if c.LastStable[p] != hw {
				t.Errorf("%s: partition %d last stable offset %d, high watermark %d: want equal once every transaction ended", c.Isolation, p, c.LastStable[p], hw)
			}
		}
	}
	if c := views[results.ReadCommitted]; c.SeenCommitted != 12 || c.SeenAborted != 0 {
		t.Errorf("read_committed saw %d committed and %d aborted records, want 12 and 0", c.SeenCommitted, c.SeenAborted)
	}
	if c := views[results.ReadUncommitted]; c.SeenCommitted != 12 || c.SeenAborted != 8 {
		t.Errorf("read_uncommitted saw %d committed and %d aborted records, want 12 and 8", c.SeenCommitted, c.SeenAborted)
	}

	// The independent reader: exact ids either way.
	topic := run.Topics[0].Name
	if got := readIDs(t, st.Bootstrap(), topic, kgo.ReadCommitted()); !slices.Equal(got, committed) {
		t.Errorf("independent read_committed reader saw %v, want %v", got, committed)
	}
	all := append(slices.Clone(committed), aborted...)
	results.SortIDs(all)
	if got := readIDs(t, st.Bootstrap(), topic, kgo.ReadUncommitted()); !slices.Equal(got, all) {
		t.Errorf("independent read_uncommitted reader saw %v, want %v", got, all)
	}
	// The producer id and epoch each record carries in the log, read by
	// the test's own client: those the transaction's record names.
	inLog := producerOf(t, st.Bootstrap(), topic)
	for _, x := range run.Transactions {
		for _, id := range x.IDs {
			if got := inLog[id]; got != [2]int64{x.ProducerID, int64(x.Epoch)} {
				t.Errorf("%s of transaction %d is in the log with producer id %d epoch %d; the evidence says %d, %d", id, x.N, got[0], got[1], x.ProducerID, x.Epoch)
			}
		}
	}
	if !strings.Contains(out, "committed 3, aborted 2 (2 on purpose), unknown 0") {
		t.Errorf("console lacks the transactions summary")
	}
}

// finalizedFeatures asks the cluster for its finalized features with an
// ApiVersions request of the test's own.
func finalizedFeatures(t *testing.T, seeds []string) map[string]int16 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int16{}
	for _, f := range resp.FinalizedFeatures {
		out[f.Name] = f.MaxVersionLevel
	}
	return out
}

// producerOf reads topic read_uncommitted from the start to the
// sentinels of the final read with a client of the test's own and returns
// each record's producer id and epoch by message id.
func producerOf(t *testing.T, seeds []string, topic string) map[string][2]int64 {
	t.Helper()
	out := map[string][2]int64{}
	if !toSentinels(t, seeds, topic, kgo.ReadUncommitted(), func(id string, r *kgo.Record) {
		out[id] = [2]int64{r.ProducerID, int64(r.ProducerEpoch)}
	}) {
		t.Fatalf("reading %s: no sentinel in every partition within 30s", topic)
	}
	return out
}

// readIDs reads topic from the start with a consumer of the test's own
// at the given isolation level, until the sentinels of the final read
// (the last records of every partition) came, and returns the message ids
// it saw, sorted.
func readIDs(t *testing.T, seeds []string, topic string, level kgo.IsolationLevel) []string {
	t.Helper()
	var ids []string
	if !toSentinels(t, seeds, topic, level, func(id string, _ *kgo.Record) { ids = append(ids, id) }) {
		t.Fatalf("reading %s: no sentinel in every partition within 30s (saw %v)", topic, ids)
	}
	results.SortIDs(ids)
	return ids
}

// toSentinels reads topic (two partitions) from the start with a client
// of the test's own at the given isolation level, giving each record
// before the final read's sentinels to each with its message id, until
// both partitions' sentinels came; false when they did not within 30s.
func toSentinels(t *testing.T, seeds []string, topic string, level kgo.IsolationLevel, each func(id string, r *kgo.Record)) bool {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(level))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sentinels := map[int32]bool{}
	for len(sentinels) < 2 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			id := string(kafka.IDOf(r.Value))
			if results.IsSentinel(id) {
				sentinels[r.Partition] = true
				return
			}
			each(id, r)
		})
	}
	return ctx.Err() == nil
}
