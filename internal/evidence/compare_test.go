package evidence

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestCompareGolden(t *testing.T) {
	a, _ := load(t, fixture)
	b, _ := load(t, fixture)
	// B: another Kafka version, on which acks=all lost a message in one
	// run and the expectation failed there.
	b.Provenance.Kafka = "4.0.0"
	b.Title = `Does acks=1 lose <acknowledged> "messages"?`
	run := &b.Runs[1]
	for i, tl := range run.Final {
		if tl.Label == "acksall" {
			run.Final[i].Lost = append(run.Final[i].Lost, run.Final[0].Lost...)
		}
	}
	for i, x := range run.Expectations {
		if x.Expr == "lost(acksall) == 0" {
			run.Expectations[i].Held = false
			run.Expectations[i].Actual = "10"
		}
	}
	c := Compare(a, b, "a/kafka-4.3.1", "b/kafka-4.0.0")
	var text, page bytes.Buffer
	if err := c.Text(&text); err != nil {
		t.Fatal(err)
	}
	if err := c.HTML(&page); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.txt", text.Bytes())
	golden(t, "compare.html", page.Bytes())

	changed := map[string]bool{}
	for _, r := range c.Rows {
		if r.Changed {
			changed[r.Section+"/"+r.Name] = true
		}
	}
	for _, want := range []string{"/kafka", "/title", "/verdict", "acksall/lost", "expectations/lost(acksall) == 0"} {
		if !changed[want] {
			t.Errorf("row %s not marked changed", want)
		}
	}
	for _, not := range []string{"/backend", "acks1/lost", "acks1/p99 ack latency"} {
		if changed[not] {
			t.Errorf("row %s marked changed, but it is the same", not)
		}
	}
	if len(changed) != c.Changed {
		t.Errorf("Changed = %d, rows marked %d", c.Changed, len(changed))
	}
	if strings.Contains(page.String(), "<acknowledged>") || !strings.Contains(page.String(), "&lt;acknowledged&gt;") {
		t.Error("the HTML page does not escape the title")
	}
	for _, net := range []string{"http://", "https://", "<script", "src="} {
		if strings.Contains(page.String(), net) {
			t.Errorf("the HTML page contains %q: it must make no requests", net)
		}
	}
}

func TestCompareLatencyTolerance(t *testing.T) {
	for _, c := range []struct {
		a, b time.Duration
		want bool
	}{
		{100 * time.Millisecond, 105 * time.Millisecond, false},
		{100 * time.Millisecond, 120 * time.Millisecond, true},
		{0, 0, false},
		{0, time.Millisecond, true},
	} {
		if got := latencyChanged(c.a, c.b); got != c.want {
			t.Errorf("latencyChanged(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestCompareRealRuns compares two real runs of producer-acks on two Kafka
// versions: copies of published runs (20261130T055237Z on 4.3.1 and
// 20261130T055541Z on 4.0.0) kept in testdata with their leader/ISR
// samples, broker log lines and step outputs left out, which Compare does
// not read.
func TestCompareRealRuns(t *testing.T) {
	// Two runs of one runbook (the same sha256) on two releases, named
	// by their directories: newer runs may run a later runbook.
	dirs := []string{"testdata/compare/4.3.1", "testdata/compare/4.0.0"}
	a, _ := load(t, dirs[0])
	b, _ := load(t, dirs[1])
	c := Compare(a, b, dirs[0], dirs[1])
	var text bytes.Buffer
	if err := c.Text(&text); err != nil {
		t.Fatal(err)
	}
	rows := map[string]Row{}
	for _, r := range c.Rows {
		rows[r.Section+"/"+r.Name] = r
	}
	if r := rows["/kafka"]; r.A != "4.3.1" || r.B != "4.0.0" || !r.Changed {
		t.Errorf("kafka row = %+v", r)
	}
	if r := rows["/runbook sha256"]; r.Changed {
		t.Errorf("the runs ran different runbooks: %+v", r)
	}
	for _, label := range a.Labels() {
		if _, ok := rows[label+"/lost"]; !ok {
			t.Errorf("no lost row for %s:\n%s", label, text.String())
		}
	}
	if !strings.Contains(text.String(), "changed (marked *") {
		t.Errorf("text lacks the summary line:\n%s", text.String())
	}
	t.Logf("\n%s", text.String())
}

// TestCompareClients: the same runbook through franz-go and librdkafka
// differs in the client row, which names each client's exact version.
func TestCompareClients(t *testing.T) {
	a, _ := load(t, fixture)
	b, _ := load(t, fixture)
	c := Compare(a, withLibrdkafka(b), "a/kafka-4.3.1", "a/kafka-4.3.1-librdkafka-2.15.1")
	var text bytes.Buffer
	if err := c.Text(&text); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare-clients.txt", text.Bytes())
	var rows []string
	for _, r := range c.Rows {
		if r.Changed {
			rows = append(rows, r.Name+": "+r.A+" | "+r.B)
		}
	}
	want := []string{"client: franz-go v1.22.3 | librdkafka@2.15.1 (confluent-kafka 2.15.1, librdkafka 2.15.1)",
		"other clients, named by steps:  | java (kafka-clients 4.3.1)"}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("changed rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

// TestCompareTerminalText: the terminal table strips what a terminal
// would act on (ESC, BEL, CR), shows bidi controls, and bounds every
// cell, so that a 1 MiB title neither widens every row nor floods the
// terminal.
func TestCompareTerminalText(t *testing.T) {
	a, _ := load(t, fixture)
	b, _ := load(t, fixture)
	a.Title = "\x1b]0;owned\x07\x1b[2J\rtitle\u202e"
	b.Title = strings.Repeat("T", 1<<20)
	var text bytes.Buffer
	if err := Compare(a, b, "a\x1b[31m", "b").Text(&text); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	if strings.ContainsAny(out, "\x1b\x07\r\u202e") {
		t.Errorf("the table holds control characters: %q", out[:min(len(out), 400)])
	}
	if len(out) > 64<<10 {
		t.Errorf("the table is %d bytes for a 1 MiB title; want its cells bounded", len(out))
	}
	for line := range strings.Lines(out) {
		if n := utf8.RuneCountInString(line); n > 3*cellWidth+20 {
			t.Errorf("a line of %d characters: %.80q…", n, line)
		}
	}
}
