package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/engine"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
	"github.com/twmb/franz-go/pkg/kgo"
)

// conformanceRow is one row of the table every client passes: the steps
// it adds to the conformance runbook, and what each client's evidence
// must show. A line of steps that starts with "* " is one of a block
// written once per client, with the client's topic suffix as %[1]s, its
// --client flag as %[2]s and its flags for an unanswered send as %[3]s
// (conformance.unanswered); the other lines are written once.
// So every client meets the same fault: one leader killed, one follower
// stopped, for all of them. Each row works on topics of its own and
// leaves the cluster healthy.
type conformanceRow struct {
	name  string
	steps string
	check func(t *testing.T, c conformanceCase)
}

// conformanceCase is what a row's check is given: the client's row, the
// run, the client's topic for the row and an independent reader.
type conformanceCase struct {
	client conformance
	run    results.Run
	topic  string // the row's topic as the runbook names it
	reader *independentReader
}

// conformanceRows are the rows, in the order they run:
//
//   - healthy: ten sends on a healthy cluster, acks as the client has it
//     by default: every one acknowledged at the offset an independent
//     reader finds it at;
//   - acks1: the seed article's loss, the followers given 2 s to copy the
//     first batch, then cut off while the leader acknowledges the second
//     with acks=1 and dies: exactly the second batch is lost;
//   - timeout: ten sends to a topic whose only replica's node is paused,
//     with a delivery timeout of 3 s (and franz-go's idempotence off, see
//     conformance.unanswered): no answer comes, so every send is
//     unknown, and the final read (the node resumed) finds none of them,
//     since none was ever written; the node is paused for one client at
//     a time, and each client's block waits for the cluster to be healthy
//     again: franz-go on its defaults holds a send to the paused node for
//     its request timeout plus its request timeout overhead (10 s + 10 s)
//     whatever the delivery timeout, longer than the brokers' 9 s session,
//     so the controller may fence the node meanwhile, and a topic created
//     on it right after the resume would be refused;
//   - notenough: acks=all with no retries to a topic that needs three
//     in-sync replicas while a follower is stopped: the leader refuses
//     every send with NOT_ENOUGH_REPLICAS before the append, so all are
//     failed, and none is in the log.
var conformanceRows = []conformanceRow{
	{name: "healthy", check: checkHealthy, steps: `
* topic create healthy-%[1]s --replicas 1:2:3
* produce healthy-%[1]s %[2]s --count 10
* read healthy-%[1]s
* expect lost(healthy-%[1]s) == 0
`},
	{name: "acks1", check: checkAcks1, steps: `
* topic create acks1-%[1]s --replicas 1:2:3
* produce acks1-%[1]s %[2]s --acks 1 --count 10
sleep 2s
isolate k2 k3
* produce acks1-%[1]s %[2]s --acks 1 --from 11 --count 10
kill k1
rejoin k2 k3
* wait leader acks1-%[1]s in k2,k3 --timeout 90s
* read acks1-%[1]s --via k2
* expect lost(acks1-%[1]s) == {m-011..m-020}
start k1
wait healthy --timeout 120s
`},
	{name: "timeout", check: checkTimeout, steps: `
* topic create timeout-%[1]s --replicas 1
* pause k1
* produce timeout-%[1]s %[2]s %[3]s --count 10 --delivery-timeout 3s
* resume k1
* expect unknown(timeout-%[1]s) == {m-001..m-010}
* wait healthy --timeout 120s
`},
	{name: "notenough", check: checkNotEnough, steps: `
* topic create notenough-%[1]s --replicas 1:2:3 --config min.insync.replicas=3
stop k3
* wait isr notenough-%[1]s --size 2
* produce notenough-%[1]s %[2]s --acks all --retries 0 --count 10
* expect failed(notenough-%[1]s) == {m-001..m-010}
start k3
wait healthy --timeout 120s
`},
}

// conformanceRunbook is every row's steps for every client in one
// runbook, on the cluster the acks article used.
func conformanceRunbook(clients []conformance) string {
	var b strings.Builder
	b.WriteString("---\ntitle: client conformance\nnodes: 3\nbroker:\n  replica.lag.time.max.ms: 3000\n---\n```kafka\n")
	for _, r := range conformanceRows {
		var block []string
		flush := func() {
			for _, c := range clients {
				fill := strings.NewReplacer("%[1]s", c.suffix(), "%[2]s", "--client "+c.client, "%[3]s", c.unanswered)
				for _, l := range block {
					b.WriteString(strings.Join(strings.Fields(fill.Replace(l)), " ") + "\n")
				}
			}
			block = nil
		}
		for _, l := range strings.Split(strings.TrimSpace(r.steps), "\n") {
			if rest, ok := strings.CutPrefix(l, "* "); ok {
				block = append(block, rest)
				continue
			}
			flush()
			b.WriteString(l + "\n")
		}
		flush()
		b.WriteString("\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// conformance is one client's row: what it is run as, the idempotence its
// ledger must record for a produce with nothing set (every client's
// default acks is all), how the error of a send it gave up on when the
// delivery timeout passed starts, and the flags that make a send to a
// paused leader one that gets no answer.
type conformance struct {
	client     string // as --client writes it
	idempotent bool
	timedOut   string
	// unanswered: franz-go's idempotent producer first asks any broker
	// for a producer id (kgo's InitProducerID "can go to any broker if
	// the transactional ID is nil", client.go of v1.22.3); when it asks
	// the paused one, no record is ever sent and all fail with
	// ErrRecordTimeout, so which outcome a run shows would depend on the
	// broker it picked. Without idempotence every send goes to the
	// leader and gets no answer.
	unanswered string
}

// name is the client without its version.
func (c conformance) name() string {
	name, _, _ := strings.Cut(c.client, "@")
	return name
}

// suffix is the client's suffix of its topics' names.
func (c conformance) suffix() string { return strings.ReplaceAll(c.name(), "-", "") }

// TestClientConformance runs the conformance table through every client
// in one run, on one cluster: franz-go, the Java client, Spring Kafka's
// template and librdkafka, each as its driver. The drivers are installed
// first; a machine
// without a JDK or a Python venv skips that client, and under CI=true
// fails.
func TestClientConformance(t *testing.T) {
	clients := []conformance{
		// franz-go: acks=all with idempotence by default (its own).
		{client: runbook.FranzGo, idempotent: true, timedOut: "records have timed out before they were able to be produced",
			unanswered: "--idempotent=false"},
		// Java 3.0 and later: acks=all with idempotence by default.
		// Its TimeoutException is Kafka's REQUEST_TIMED_OUT by name.
		{client: runbook.Java, idempotent: true, timedOut: "REQUEST_TIMED_OUT: Expiring 10 record(s)"},
		// librdkafka: acks=all (request.required.acks -1), no idempotence.
		{client: runbook.Librdkafka + "@2.15.1", idempotent: false, timedOut: "_MSG_TIMED_OUT: Local: Message timed out"},
		// Spring Kafka's KafkaTemplate on the kafka-clients it depends on:
		// the Java client's defaults and errors, through Spring.
		{client: runbook.Spring, idempotent: true, timedOut: "REQUEST_TIMED_OUT: Expiring 10 record(s)"},
	}
	if !testcluster.Full() {
		// Spring's KafkaTemplate sends through the Java client, whose row
		// the fast tier keeps; its own row is the full tier's.
		clients = slices.DeleteFunc(clients, func(c conformance) bool { return c.client == runbook.Spring })
		t.Log("spring's row runs in the full tier only")
	}
	for _, c := range clients[1:] {
		installDriver(t, c.client)
	}
	backend, _ := sharedThree(t)
	reader := newIndependentReader(t, backend)
	began := time.Now()
	res, err := runWithClient(t, backend, runbook.FranzGo, conformanceRunbook(clients))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("the table ran in %v", time.Since(began).Round(time.Second))
	run := res.Runs[0]
	allHeld(t, run)
	for _, c := range clients {
		t.Run(c.client, func(t *testing.T) {
			for _, row := range conformanceRows {
				t.Run(row.name, func(t *testing.T) {
					row.check(t, conformanceCase{client: c, run: run, topic: row.name + "-" + c.suffix(), reader: reader})
				})
			}
			// The provenance names the client, its exact version and the
			// configuration it ran with.
			checkClientProvenance(t, res.Provenance, c)
			if c.client == runbook.Java || c.client == runbook.Spring {
				checkLoweredRequestTimeout(t, res.Provenance, c.client)
			}
		})
	}
}

// installDriver installs a client's driver ahead of the run, so that a
// missing runtime is a skip (a failure under CI=true) with the package to
// install, not a failed run.
func installDriver(t *testing.T, client string) {
	t.Helper()
	ref, err := driver.ParseRef(client)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	_, err = driver.Install(ctx, ref, func(f string, a ...any) { t.Logf(f, a...) })
	switch {
	case err == nil:
	case os.Getenv("CI") == "true":
		t.Fatalf("%v; CI must provide it", err)
	case strings.Contains(err.Error(), "not found") || strings.Contains(err.Error(), "apt-get install"):
		t.Skip(err)
	default:
		t.Fatal(err)
	}
}

// checkHealthy: every send acknowledged at the offset the independent
// reader finds it at, in order, once, with the acks and idempotence the
// client applies by default.
func checkHealthy(t *testing.T, c conformanceCase) {
	found := c.reader.read(c.topic)
	msgs := c.run.Messages(c.topic)
	if len(msgs) != 10 {
		t.Fatalf("%s: %d ledger entries, want 10", c.topic, len(msgs))
	}
	for i, m := range msgs {
		if m.Status != results.StatusOK || m.Offset != int64(i) || !slices.Equal(found[m.ID], []int64{m.Offset}) {
			t.Errorf("%s: %s %s at offset %d; the independent reader finds it at %v; want ok at %d", c.topic, m.ID, m.Status, m.Offset, found[m.ID], i)
		}
		if m.Acks != "all" || m.Idempotent != c.client.idempotent {
			t.Errorf("%s: %s recorded acks=%s idempotent=%v; want all, %v", c.topic, m.ID, m.Acks, m.Idempotent, c.client.idempotent)
		}
	}
}

// checkAcks1: the final read finds exactly the second batch lost.
func checkAcks1(t *testing.T, c conformanceCase) {
	final, ok := finalTally(c.run, c.topic)
	if want := ids(11, 20); !ok || !slices.Equal(final.LostIDs(), want) {
		t.Errorf("%s: final lost %v, want %v", c.topic, final.LostIDs(), want)
	}
}

// checkTimeout: every send unknown with the client's own timeout error,
// and the final read, like the independent reader, finds none of them.
func checkTimeout(t *testing.T, c conformanceCase) {
	msgs := c.run.Messages(c.topic)
	checkOutcome(t, c.topic, msgs, results.StatusUnknown, c.client.timedOut, func(e string) bool { return strings.HasPrefix(e, c.client.timedOut) })
	final, ok := finalTally(c.run, c.topic)
	if !ok || final.Unknown != 10 || len(final.UnknownPresent) != 0 || final.Acked != 0 {
		t.Errorf("%s: final read: %d unknown, of them present %v, %d acked; want 10 unknown, none present, none acked", c.topic, final.Unknown, final.UnknownPresent, final.Acked)
	}
	notInLog(t, c, msgs)
}

// checkNotEnough: every send failed with NOT_ENOUGH_REPLICAS, none in the
// log.
func checkNotEnough(t *testing.T, c conformanceCase) {
	msgs := c.run.Messages(c.topic)
	// franz-go gives the name alone, the drivers the name and the text.
	notEnough := func(e string) bool {
		return e == "NOT_ENOUGH_REPLICAS" || strings.HasPrefix(e, "NOT_ENOUGH_REPLICAS: ")
	}
	checkOutcome(t, c.topic, msgs, results.StatusFailed, "NOT_ENOUGH_REPLICAS", notEnough)
	final, ok := finalTally(c.run, c.topic)
	if !ok || final.Failed != 10 || len(final.FailedPresent) != 0 || final.Acked != 0 {
		t.Errorf("%s: final read: %d failed, of them present %v, %d acked; want 10 failed, none present, none acked", c.topic, final.Failed, final.FailedPresent, final.Acked)
	}
	notInLog(t, c, msgs)
}

// checkOutcome checks that the ledger holds m-001..m-010, each with
// status and an error that is the error want says (errOK).
func checkOutcome(t *testing.T, topic string, msgs []results.Message, status results.Status, want string, errOK func(string) bool) {
	t.Helper()
	var got []string
	for _, m := range msgs {
		got = append(got, m.ID)
		if m.Status != status || !errOK(m.Error) {
			t.Errorf("%s: %s %s with error %q; want %s with %s", topic, m.ID, m.Status, m.Error, status, want)
		}
	}
	if want := ids(1, 10); !slices.Equal(got, want) {
		t.Errorf("%s: ledger ids %v, want %v", topic, got, want)
	}
	if len(msgs) > 0 {
		t.Logf("%s: %s: %s", topic, msgs[0].Status, msgs[0].Error)
	}
}

// notInLog checks with the independent reader that no message of msgs is
// in the row's topic.
func notInLog(t *testing.T, c conformanceCase, msgs []results.Message) {
	t.Helper()
	found := c.reader.read(c.topic)
	for _, m := range msgs {
		if at, ok := found[m.ID]; ok {
			t.Errorf("%s: the independent reader finds %s (%s) at %v; want it absent", c.topic, m.ID, m.Status, at)
		}
	}
}

// checkClientProvenance checks what the evidence says of the client:
// the exact version, runtime and the configuration in force for its first
// produce step, the healthy row's, which sets nothing: the client's
// defaults. For franz-go, which runs in kafkabook's process, that is what
// the client reads back: acks=all and idempotence (franz-go's defaults),
// settings left at franz-go's own defaults (batch.size and the metadata
// ages, compared with a client franz-go builds with nothing set), and
// nothing named as set by kafkabook.
func checkClientProvenance(t *testing.T, p results.Provenance, row conformance) {
	t.Helper()
	var c *results.ClientInfo
	for i := range p.Clients {
		if p.Clients[i].Client == row.name() {
			c = &p.Clients[i]
			break
		}
	}
	if c == nil {
		t.Fatalf("provenance clients %+v; want %s with its configuration", p.Clients, row.client)
	}
	if row.client == runbook.FranzGo {
		bare, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"))
		if err != nil {
			t.Fatal(err)
		}
		defaultBatch := fmt.Sprint(bare.OptValue(kgo.ProducerBatchMaxBytes))
		minAge := fmt.Sprint(bare.OptValue(kgo.MetadataMinAge).(time.Duration).Milliseconds())
		bare.Close()
		switch {
		case c.Library != "franz-go" || c.Version == "" || c.Runtime == "":
			t.Errorf("franz-go: client %+v: want franz-go with its version and runtime", *c)
		case c.Config["acks"] != "all" || c.Config["enable.idempotence"] != "true":
			t.Errorf("franz-go: acks=%q enable.idempotence=%q in force; want all, true (franz-go's defaults)", c.Config["acks"], c.Config["enable.idempotence"])
		case c.Config["batch.size"] != defaultBatch || c.Config["kgo.MetadataMinAge"] != minAge:
			t.Errorf("franz-go: batch.size=%q kgo.MetadataMinAge=%q in force; want franz-go's defaults %s and %s", c.Config["batch.size"], c.Config["kgo.MetadataMinAge"], defaultBatch, minAge)
		case len(c.SetByKafkabook) != 0:
			t.Errorf("franz-go: %q named as set by kafkabook; want none (a produce step that sets nothing)", c.SetByKafkabook)
		}
		t.Logf("franz-go %s: %v (set by kafkabook: %v)", c.Version, c.Config, c.SetByKafkabook)
		return
	}
	if c == nil {
		t.Fatalf("provenance clients %+v; want %s with its configuration", p.Clients, row.client)
	}
	idem := c.Config["enable.idempotence"]
	switch {
	case c.Version == "" || c.Runtime == "":
		t.Errorf("client %+v: no version or runtime", c)
	case (row.client == runbook.Java || row.client == runbook.Spring) && (c.Config["acks"] != "-1" && c.Config["acks"] != "all" || idem != "true"):
		t.Errorf("%s: acks=%q enable.idempotence=%q in force by default; want all (-1), true", row.client, c.Config["acks"], idem)
	case row.client == runbook.Spring && (c.Library != "spring-kafka" || !strings.Contains(c.Runtime, ", kafka-clients ") || !slices.Contains(c.SetByKafkabook, "template.producerListener")):
		t.Errorf("spring: client %+v: want spring-kafka on its kafka-clients, its template's listener named as kafkabook's", *c)
	case strings.HasPrefix(row.client, runbook.Librdkafka) && (c.Version != "2.15.1" || idem != "false"):
		t.Errorf("librdkafka: version %s, enable.idempotence=%q in force; want 2.15.1, false", c.Version, idem)
	}
	t.Logf("%s %s on %s: acks=%s enable.idempotence=%s", c.Library, c.Version, c.Runtime, c.Config["acks"]+c.Config["request.required.acks"], idem)
}

// checkLoweredRequestTimeout: the Java client (under Spring too) refuses
// a delivery timeout under linger.ms + request.timeout.ms, so its driver
// lowers the request timeout under the timeout row's 3 s; the evidence
// names that as kafkabook's setting, with the value in force.
func checkLoweredRequestTimeout(t *testing.T, p results.Provenance, client string) {
	t.Helper()
	for _, c := range p.Clients {
		if c.Client != client || c.Config["delivery.timeout.ms"] != "3000" {
			continue
		}
		if rt, _ := strconv.Atoi(c.Config["request.timeout.ms"]); rt <= 0 || rt >= 3000 || !slices.Contains(c.SetByKafkabook, "request.timeout.ms") {
			t.Errorf("%s with delivery.timeout.ms=3000: request.timeout.ms=%q, set by kafkabook %q; want under 3000, named as kafkabook's", client, c.Config["request.timeout.ms"], c.SetByKafkabook)
		}
		return
	}
	t.Errorf("no %s client entry with delivery.timeout.ms=3000 in %+v", client, p.Clients)
}

// ids are the message ids m-from .. m-to.
func ids(from, to int) []string {
	var out []string
	for n := from; n <= to; n++ {
		out = append(out, results.MessageID(int64(n)))
	}
	return out
}

// runWithClient runs src with client as the run's client.
func runWithClient(t *testing.T, backend cluster.Backend, client, src string) (*results.Results, error) {
	t.Helper()
	res, _, err := runWithClientDir(t, backend, client, src)
	return res, err
}

// runWithClientDir is runWithClient that also returns the evidence
// directory.
func runWithClientDir(t *testing.T, backend cluster.Backend, client, src string) (*results.Results, string, error) {
	t.Helper()
	doc, err := runbook.Load("conformance.md", []byte(src), runbook.Overrides{Client: []string{client}})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := results.NewRunDir(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := engine.Run(context.Background(), engine.Options{Doc: doc, Dir: dir, Backend: backend, Out: &out, Client: client,
		Provenance: results.Provenance{Kafka: runbook.DefaultKafka}})
	if res == nil {
		t.Log(out.String())
		t.Fatalf("no results: %v", err)
	}
	// The transcript comes after the test's own errors, which a reader
	// of a cut log (CI's) then still sees under the test's name.
	t.Cleanup(func() { t.Log(out.String()) })
	recheckStored(t, dir, res)
	return res, dir, err
}
