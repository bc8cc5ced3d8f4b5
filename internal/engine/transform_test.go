package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// transformRunbook: for each client (its groups and outputs suffixed -f
// for franz-go, -j for java), two transform groups read the same 30
// records in polls of 5 and crash right after writing the derived record
// of their 13th, inside the third poll (m-011..m-015), before its commit;
// each is then restarted. eos commits each poll's offsets in its
// transaction: the successor fences the crashed member, whose open
// transaction (derived m-011..m-013) is aborted, and writes every record
// once. alo commits after the writes: the successor resumes at offset 10,
// so m-011..m-013 are written twice. teos reads an input written in
// transactions (by the Java client), every other one aborted: it is given
// only the committed m-001..m-005 and m-011..m-015, crashes at the 5th,
// and its successor catches up although aborted records and transaction
// markers follow the last record it gets. Both clients' groups run side
// by side in one run.
var transformRunbook = func() string {
	var b strings.Builder
	b.WriteString("---\ntitle: transform\nnodes: 1\nrepeat: 1\n---\n```kafka\n")
	b.WriteString("topic create in --replication-factor 1\ntopic create tin --replication-factor 1\n")
	b.WriteString("produce in --acks all --count 30\n")
	b.WriteString("produce tin --client java --acks all --count 20 --transactional --txn-size 5 --abort-every 2\n")
	for _, c := range transformClients {
		fmt.Fprintf(&b, `topic create out-%[1]s --replication-factor 1
topic create out2-%[1]s --replication-factor 1
topic create tout-%[1]s --replication-factor 1
transform in --to out-%[1]s --group eos-%[1]s --client %[2]s --eos --batch 5 --crash-at 13 &
transform in --to out2-%[1]s --group alo-%[1]s --client %[2]s --batch 5 --crash-at 13 &
transform tin --to tout-%[1]s --group teos-%[1]s --client %[2]s --eos --batch 4 --crash-at 5 &
`, c.key, c.client)
	}
	for _, verb := range []string{"wait consumer %[1]s --timeout 60s", "start consumer %[1]s", "wait consumer %[1]s --timeout 90s"} {
		for _, c := range transformClients {
			for _, g := range []string{"eos", "alo", "teos"} {
				fmt.Fprintf(&b, verb+"\n", g+"-"+c.key)
			}
		}
	}
	for _, c := range transformClients {
		fmt.Fprintf(&b, `expect eos_duplicates(teos-%[1]s) == 0
expect eos_missing(teos-%[1]s) == 0
expect eos_duplicates(eos-%[1]s) == 0
expect eos_missing(eos-%[1]s) == 0
expect eos_duplicates(alo-%[1]s) == {m-011..m-013}
expect eos_missing(alo-%[1]s) == 0
`, c.key)
	}
	b.WriteString("```\n")
	return b.String()
}()

// transformClients are the clients a transform member runs on, with the
// suffix of their groups and topics in transformRunbook.
var transformClients = []struct{ client, key string }{{"franz-go", "f"}, {"java", "j"}}

// TestTransformCrash runs consume-transform-produce through a member's
// SIGKILL with and without transactions, and checks the output topics
// with a reader of its own: with --eos every input exactly once among
// committed records (and the crashed member's derived m-011..m-013 in the
// log, aborted); without, m-011..m-013 twice.
//
// Every client a transform member runs on runs in one run, on one
// cluster: franz-go (kafkabook's own member) and java (the driver's
// Transform.java).
func TestTransformCrash(t *testing.T) {
	installDriver(t, "java")
	backend, st := sharedOne(t)
	start := time.Now()
	res, err := runWithClient(t, backend, "franz-go", transformRunbook)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("the run took %s", time.Since(start).Round(time.Second))
	allHeld(t, res.Runs[0])
	for _, c := range transformClients {
		t.Run(c.client, func(t *testing.T) { checkTransformCrash(t, st.Bootstrap(), res, c.client, c.key) })
	}
}

// checkTransformCrash checks a run of transformRunbook through client.
func checkTransformCrash(t *testing.T, seeds []string, res *results.Results, client, key string) {
	run := res.Runs[0]
	if client != "franz-go" {
		found := false
		for _, ci := range res.Provenance.Clients {
			found = found || ci.Client == client
		}
		if !found {
			t.Errorf("%s: the provenance names no member of this client: %+v", client, res.Provenance.Clients)
		}
	}
	var all []string
	for n := 1; n <= 30; n++ {
		all = append(all, kafka.MessageID(n))
	}
	again := []string{"m-011", "m-012", "m-013"}
	withAgain := append(slices.Clone(all), again...)
	results.SortIDs(withAgain)

	for _, g := range []string{"eos-" + key, "alo-" + key} {
		c, ok := run.Consumer(g)
		if !ok || c.Tally == nil || c.Tally.EOS == nil {
			t.Fatalf("group %s: no exactly-once check in the evidence: %+v", g, c)
		}
		if len(c.Members) != 2 || c.Members[0].How != results.MemberCrashed {
			t.Errorf("group %s: members %+v, want 2, the first crashed", g, c.Members)
		}
		chk := c.Tally.EOS
		if chk.Inputs != 30 || len(chk.Missing) != 0 || len(chk.Strays) != 0 {
			t.Errorf("group %s: inputs %d missing %v strays %v; want 30, none, none", g, chk.Inputs, chk.Missing, chk.Strays)
		}
	}
	eos, _ := run.Consumer("eos-" + key)
	if got := eos.Tally.EOS; got.Once != 30 || len(got.Duplicates) != 0 {
		t.Errorf("eos: once %d, duplicates %+v; want 30, none", got.Once, got.Duplicates)
	}
	alo, _ := run.Consumer("alo-" + key)
	if got := alo.Tally.EOS.DuplicateIDs(); !slices.Equal(got, again) {
		t.Errorf("alo: duplicates %v, want %v", got, again)
	}
	for _, d := range alo.Tally.EOS.Duplicates {
		if len(d.Out) != 2 {
			t.Errorf("alo: %s found %d times in out2 (%+v), want 2", d.ID, len(d.Out), d.Out)
		}
	}

	// The reader of the test's own.
	if out, out2 := eos.Settings["to"], alo.Settings["to"]; out != "out-"+key || out2 != "out2-"+key {
		t.Fatalf("settings name outputs %q and %q", out, out2)
	}
	suffix := "-" + key + eos.Group[len("eos-"+key):] // the run's suffix
	if got := readAllIDs(t, seeds, "out"+suffix, kgo.ReadCommitted()); !slices.Equal(got, all) {
		t.Errorf("independent read_committed of out: %v, want m-001..m-030 once each", got)
	}
	if got := readAllIDs(t, seeds, "out"+suffix, kgo.ReadUncommitted()); !slices.Equal(got, withAgain) {
		t.Errorf("independent read_uncommitted of out: %v, want m-001..m-030 and the aborted m-011..m-013", got)
	}
	if got := readAllIDs(t, seeds, "out2"+suffix, kgo.ReadCommitted()); !slices.Equal(got, withAgain) {
		t.Errorf("independent read_committed of out2: %v, want m-001..m-030 with m-011..m-013 twice", got)
	}
	committedIn := []string{"m-001", "m-002", "m-003", "m-004", "m-005", "m-011", "m-012", "m-013", "m-014", "m-015"}
	if got := readAllIDs(t, seeds, "tout"+suffix, kgo.ReadCommitted()); !slices.Equal(got, committedIn) {
		t.Errorf("independent read_committed of tout: %v, want %v: the committed inputs once each", got, committedIn)
	}
	if teos, ok := run.Consumer("teos-" + key); !ok || teos.Tally == nil || teos.Tally.EOS == nil || teos.Tally.EOS.Inputs != 10 || teos.Tally.EOS.Once != 10 {
		t.Errorf("teos: %+v, want 10 inputs, each once", teos)
	}
}

// readAllIDs reads every partition of topic to its high watermark at the
// given isolation level, with a client of the test's own, and returns the
// ids the values start with, sorted.
func readAllIDs(t *testing.T, seeds []string, topic string, level kgo.IsolationLevel) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(level), kgo.KeepControlRecords())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	next := map[int32]int64{}
	done := func() bool {
		ok := true
		ends.Each(func(o kadm.ListedOffset) { ok = ok && next[o.Partition] >= o.Offset })
		return ok
	}
	var ids []string
	for !done() && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			next[r.Partition] = r.Offset + 1
			if !r.Attrs.IsControl() {
				ids = append(ids, string(kafka.IDOf(r.Value)))
			}
		})
	}
	if ctx.Err() != nil {
		t.Fatalf("reading %s: did not reach its end offsets within 30s (saw %v)", topic, ids)
	}
	results.SortIDs(ids)
	return ids
}
