package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/engine"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// conformanceRunbook is the table every client passes, with the client's
// name in its topics so that one cluster holds each client's apart:
//
//   - healthy: ten sends on a healthy cluster, acks as the client has it
//     by default (franz-go, which has no default in kafkabook, all): every
//     one acknowledged at the offset an independent reader finds it at;
//   - acks1: the seed article's loss, the followers given 2 s to copy the
//     first batch, then cut off while the leader acknowledges the second
//     with acks=1 and dies: exactly the second batch is lost.
const conformanceRunbook = "---\n" + `title: client conformance
nodes: 3
broker:
  replica.lag.time.max.ms: 3000
---
` + "```kafka" + `
topic create healthy-%[1]s --replicas 1:2:3
produce healthy-%[1]s %[2]s --count 10
read healthy-%[1]s
expect lost(healthy-%[1]s) == 0

topic create acks1-%[1]s --replicas 1:2:3
produce acks1-%[1]s --acks 1 --count 10
sleep 2s
isolate k2 k3
produce acks1-%[1]s --acks 1 --from 11 --count 10
kill k1
rejoin k2 k3
wait leader acks1-%[1]s in k2,k3 --timeout 90s
read acks1-%[1]s --via k2
expect lost(acks1-%[1]s) == 10
start k1
wait healthy --timeout 120s
` + "```\n"

// conformance is one client's row: what it is run as, and the acks and
// idempotence its ledger must record for a produce without --acks.
type conformance struct {
	client     string // as --client writes it
	acks       string // "" for franz-go: --acks all is given
	idempotent bool
}

// TestClientConformance runs the conformance table through every client
// on one cluster: franz-go in process, the Java client and librdkafka as
// drivers. The drivers are installed first; a machine without a JDK or a
// Python venv skips that client, and under CI=true fails.
func TestClientConformance(t *testing.T) {
	rows := []conformance{
		// franz-go: kafkabook turns idempotence off unless --idempotent.
		{client: runbook.FranzGo},
		// Java 3.0 and later: acks=all with idempotence by default.
		{client: runbook.Java, acks: "all", idempotent: true},
		// librdkafka: acks=all (request.required.acks -1), no idempotence.
		{client: runbook.Librdkafka + "@2.15.1", acks: "all", idempotent: false},
	}
	for _, r := range rows[1:] {
		installDriver(t, r.client)
	}
	backend, _ := testcluster.Start(t, 3, map[string]string{"replica.lag.time.max.ms": "3000"})
	reader := newIndependentReader(t, backend)
	for _, row := range rows {
		t.Run(row.client, func(t *testing.T) { testConformance(t, backend, reader, row) })
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

func testConformance(t *testing.T, backend cluster.Backend, reader *independentReader, row conformance) {
	name, _, _ := strings.Cut(row.client, "@")
	acksFlag := ""
	if row.client == runbook.FranzGo {
		acksFlag = "--acks all"
	}
	src := fmt.Sprintf(conformanceRunbook, strings.ReplaceAll(name, "-", ""), acksFlag)
	res, err := runWithClient(t, backend, row.client, src)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run := res.Runs[0]
	for _, e := range run.Expectations {
		if !e.Held {
			t.Errorf("%s: %s did not hold: the value was %s", e.Pos, e.Expr, e.Actual)
		}
	}
	suffix := strings.ReplaceAll(name, "-", "")
	healthy := "healthy-" + suffix

	// Every healthy send acknowledged at the offset the independent reader
	// finds it at, in order, once.
	found := reader.read(healthy)
	msgs := run.Messages(healthy)
	if len(msgs) != 10 {
		t.Fatalf("%s: %d ledger entries, want 10", healthy, len(msgs))
	}
	for i, m := range msgs {
		if m.Status != results.StatusOK || m.Offset != int64(i) || !slices.Equal(found[m.ID], []int64{m.Offset}) {
			t.Errorf("%s: %s %s at offset %d; the independent reader finds it at %v; want ok at %d", healthy, m.ID, m.Status, m.Offset, found[m.ID], i)
		}
		if m.Acks != "all" || m.Idempotent != row.idempotent {
			t.Errorf("%s: %s recorded acks=%s idempotent=%v; want all, %v", healthy, m.ID, m.Acks, m.Idempotent, row.idempotent)
		}
	}

	// The acks=1 loss: exactly the second batch.
	final, ok := finalTally(run, "acks1-"+suffix)
	if want := ids(11, 20); !ok || !slices.Equal(final.LostIDs(), want) {
		t.Errorf("acks1: final lost %v, want %v", final.LostIDs(), want)
	}

	// The provenance names the client, its exact version and the
	// configuration it ran with.
	checkClientProvenance(t, res.Provenance, row)
}

// checkClientProvenance checks what the evidence says of the client.
func checkClientProvenance(t *testing.T, p results.Provenance, row conformance) {
	t.Helper()
	if row.client == runbook.FranzGo {
		if p.Client != "" || len(p.Clients) != 0 {
			t.Errorf("franz-go run: provenance client %q, clients %v; want none", p.Client, p.Clients)
		}
		return
	}
	if p.Client != row.client || len(p.Clients) == 0 {
		t.Fatalf("provenance client %q, clients %+v; want %s with its configuration", p.Client, p.Clients, row.client)
	}
	c := p.Clients[0]
	idem := c.Config["enable.idempotence"]
	switch {
	case c.Version == "" || c.Runtime == "":
		t.Errorf("client %+v: no version or runtime", c)
	case row.client == runbook.Java && (c.Config["acks"] != "-1" && c.Config["acks"] != "all" || idem != "true"):
		t.Errorf("java: acks=%q enable.idempotence=%q in force by default; want all (-1), true", c.Config["acks"], idem)
	case strings.HasPrefix(row.client, runbook.Librdkafka) && (c.Version != "2.15.1" || idem != "false"):
		t.Errorf("librdkafka: version %s, enable.idempotence=%q in force; want 2.15.1, false", c.Version, idem)
	}
	t.Logf("%s %s on %s: acks=%s enable.idempotence=%s", c.Library, c.Version, c.Runtime, c.Config["acks"]+c.Config["request.required.acks"], idem)
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
	t.Log(out.String())
	if res == nil {
		t.Fatalf("no results: %v", err)
	}
	return res, dir, err
}
