package evidence

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixture is the schema 3 evidence the report tests use.
const fixture = "../../report/testdata/acks"

func load(t *testing.T, dir string) (*results.Results, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, results.FileName))
	if err != nil {
		t.Fatal(err)
	}
	res, err := results.Decode(dir, data)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return res, hex.EncodeToString(sum[:])
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update after checking):\n--- got ---\n%s", name, got)
	}
}

func TestEvidenceGolden(t *testing.T) {
	res, sum := load(t, fixture)
	b := Summarize(res, sum, "report/testdata/acks/index.html")
	var md, js bytes.Buffer
	if err := b.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := b.JSON(&js); err != nil {
		t.Fatal(err)
	}
	golden(t, "acks.md", md.Bytes())
	golden(t, "acks.json", js.Bytes())

	// The same evidence gives the same bytes (maps are sorted, no clock).
	for range 5 {
		var again bytes.Buffer
		Summarize(res, sum, "report/testdata/acks/index.html").Markdown(&again)
		if !bytes.Equal(again.Bytes(), md.Bytes()) {
			t.Fatal("evidence block differs between two renderings of the same evidence")
		}
	}
	for _, want := range []string{
		"held in 4 of 4 runs", "| `acks1` |", "sha256 `" + res.Runbook.SHA256 + "`",
		"results.json sha256 `" + sum + "`", "`replica.lag.time.max.ms=3000`",
		"[report/testdata/acks/index.html](report/testdata/acks/index.html)",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("evidence block lacks %q", want)
		}
	}
}

func TestEvidenceTopicConfigs(t *testing.T) {
	res, _ := load(t, fixture)
	res.Provenance.Params = map[string]string{"isr": "2"}
	res.Runs[0].Steps = append(res.Runs[0].Steps, results.StepOutput{Text: "topic create safe --replicas 1:2:3 --config min.insync.replicas=${isr} --config=cleanup.policy=delete"})
	b := Summarize(res, "x", "r")
	want := map[string]string{"min.insync.replicas": "2", "cleanup.policy": "delete"}
	got := b.TopicConfigs["safe"]
	if len(got) != len(want) || got["min.insync.replicas"] != "2" || got["cleanup.policy"] != "delete" {
		t.Errorf("topic configs of safe = %v, want %v", got, want)
	}
	var md bytes.Buffer
	b.Markdown(&md)
	if !strings.Contains(md.String(), "`safe`: `cleanup.policy=delete`, `min.insync.replicas=2`") {
		t.Errorf("block does not list the topic configs:\n%s", md.String())
	}

	for i := range res.Runs {
		res.Runs[i].Steps = nil
	}
	md.Reset()
	Summarize(res, "x", "r").Markdown(&md)
	if !strings.Contains(md.String(), "topic configs: not in this evidence") {
		t.Errorf("block does not say that topic configs are not recorded:\n%s", md.String())
	}
}

func TestEvidenceIncomplete(t *testing.T) {
	res, _ := load(t, fixture)
	res.Complete = false
	res.Error = "interrupted"
	res.Runs[3].Complete = false
	res.Runs[3].Error = "interrupted"
	var md bytes.Buffer
	Summarize(res, "x", "r").Markdown(&md)
	for _, want := range []string{"held in 3 of 4 runs", "**The run did not complete**: interrupted."} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("block lacks %q:\n%s", want, md.String())
		}
	}
}

// TestEvidenceGroups: a run with consumer groups gets their table, summed
// over the runs that tallied them.
func TestEvidenceGroups(t *testing.T) {
	res, _ := load(t, fixture)
	for i := range res.Runs[:2] {
		res.Runs[i].Consumers = []results.Consumer{{
			Label: "greedy", Commit: "greedy", Dedup: "none",
			Members: []results.Member{{N: 1, How: results.MemberCrashed}, {N: 2, How: results.MemberStopped}},
			Tally:   &results.ConsumerTally{Delivered: 10, Applied: 3, Unapplied: []string{"m-004", "m-005", "m-006", "m-007", "m-008", "m-009", "m-010"}},
		}}
	}
	var md bytes.Buffer
	b := Summarize(res, "x", "r")
	b.Markdown(&md)
	want := "| `greedy` | greedy | none | 20 | 6 | 0 | 0 | 14 | 2 | 2 |"
	if !strings.Contains(md.String(), want) {
		t.Errorf("block lacks %q:\n%s", want, md.String())
	}
	if len(b.Groups) != 1 || b.Groups[0].Unapplied != 14 {
		t.Errorf("groups = %+v", b.Groups)
	}
}

// withLibrdkafka makes the acks fixture a run through librdkafka 2.15.1
// (the first article's client), one step of which named the Java client:
// the provenance as the drivers record it, trimmed to the settings that
// decide durability.
func withLibrdkafka(res *results.Results) *results.Results {
	res.Provenance.Client = "librdkafka@2.15.1"
	res.Provenance.Clients = []results.ClientInfo{
		{Client: "librdkafka", Library: "confluent-kafka", Version: "2.15.1", Librdkafka: "2.15.1", Runtime: "python 3.11.7",
			Config: map[string]string{"request.required.acks": "-1", "enable.idempotence": "false"}},
		{Client: "librdkafka", Library: "confluent-kafka", Version: "2.15.1", Librdkafka: "2.15.1", Runtime: "python 3.11.7",
			Config: map[string]string{"request.required.acks": "1", "enable.idempotence": "false"}},
		{Client: "java", Library: "kafka-clients", Version: "4.3.1", Runtime: "java 17.0.13",
			Config: map[string]string{"acks": "-1", "enable.idempotence": "true"}},
	}
	return res
}

// TestEvidenceClient: the block of a run through librdkafka names the
// client and its exact versions next to the release, and the other
// client a step named; a franz-go run names franz-go's module version.
func TestEvidenceClient(t *testing.T) {
	res, sum := load(t, fixture)
	b := Summarize(withLibrdkafka(res), sum, "report/testdata/acks/index.html")
	var md, js bytes.Buffer
	if err := b.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := b.JSON(&js); err != nil {
		t.Fatal(err)
	}
	golden(t, "acks-librdkafka.md", md.Bytes())
	for _, want := range []string{
		"runs (Kafka 4.3.1 · librdkafka@2.15.1 \\(confluent-kafka 2.15.1, librdkafka 2.15.1\\), local backend",
		"- Kafka: 4.3.1; client: librdkafka@2.15.1 \\(confluent-kafka 2.15.1, librdkafka 2.15.1\\); backend: local",
		"- other clients, named by steps: java \\(kafka-clients 4.3.1\\)\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("block lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{`"client": "librdkafka@2.15.1"`, `"client_version": "confluent-kafka 2.15.1, librdkafka 2.15.1"`, `"other_clients": [` + "\n" + `    "java (kafka-clients 4.3.1)"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON block lacks %s:\n%s", want, js.String())
		}
	}

	plain, _ := load(t, fixture)
	if got := Summarize(plain, "", "").ClientLabel(); got != "franz-go v1.22.3" {
		t.Errorf("a franz-go run's client: %q, want franz-go v1.22.3", got)
	}
	plain.Provenance.FranzGo = ""
	if got := Summarize(plain, "", "").ClientLabel(); got != "franz-go" {
		t.Errorf("a franz-go run without its version: %q, want franz-go", got)
	}
}

// TestRateDecision: an expectation on a rate over runs is reported as the
// last run decided it, with that run's bound, not counted run by run.
func TestRateDecision(t *testing.T) {
	res := &results.Results{Runs: []results.Run{
		{Number: 1, Expectations: []results.Expectation{{Pos: "r.md:9:1", Expr: "runs_lost(t) < 60% at 95%", Actual: "0 of 1 runs lost any: the rate is at most 95% (95% confidence)", Undecided: true}}},
		{Number: 2, Expectations: []results.Expectation{{Pos: "r.md:9:1", Expr: "runs_lost(t) < 60% at 95%", Actual: "0 of 2 runs lost any: the rate is at most 77.6% (95% confidence)", Undecided: true}}},
		{Number: 3, Expectations: []results.Expectation{{Pos: "r.md:9:1", Expr: "runs_lost(t) < 60% at 95%", Actual: "0 of 4 runs lost any: the rate is at most 52.7% (95% confidence)", Held: true}}},
	}}
	got := Expectations(res)
	if len(got) != 1 || got[0].Decision != "held" || got[0].Runs != 3 || !reflect.DeepEqual(got[0].Actual, []string{"0 of 4 runs lost any: the rate is at most 52.7% (95% confidence)"}) {
		t.Errorf("Expectations = %+v", got)
	}
}
