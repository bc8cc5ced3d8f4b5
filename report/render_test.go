package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/results"
)

// mkRunDir copies the files of src into a new run directory laid out as
// <site>/<runbook>/kafka-<version>/<stamp>/ and returns it.
func mkRunDir(t testing.TB, src, site, runbook, version, stamp string) string {
	t.Helper()
	dir := filepath.Join(site, runbook, "kafka-"+version, stamp)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs from the golden file at line %d (rerun with -update if intended):\n got: %.300s\nwant: %.300s", name, i+1, g, w)
			}
		}
	}
}

// TestGolden renders the fixture site and compares the pages with golden
// files: the structure (headings, tables, notebook cells, chart data islands)
// only changes when someone means it to.
func TestGolden(t *testing.T) {
	site, dirs := fixtureSite(t)
	if err := RenderSite(site, Options{Generator: "kafkabook test"}); err != nil {
		t.Fatal(err)
	}
	report, err := os.ReadFile(filepath.Join(dirs[1], IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report.html", report)
	index, err := os.ReadFile(filepath.Join(site, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "site.html", index)

	page := string(report)
	// The structure, stated outright so a careless -update cannot drop it.
	for _, want := range []string{
		`<span class="verdict held">expectations held in 4 of 4 runs</span>`,
		`<h3>acks1</h3>`, `<h3>acksall</h3>`,
		`<dt>runbook sha256</dt>`, `<code>count=10</code>`, `<code>replica.lag.time.max.ms=3000</code>`,
		`id="chart-outcomes"`, `id="chart-lost"`, `id="chart-latency"`, `id="chart-distribution"`, `id="chart-isr"`,
		`"formatter":"k2,k3 isolated"`, `"formatter":"k1 killed"`, `"sampling":"max"`,
		// A time chart per run, with its own marks; the cause the why
		// section gives (k2 leading) marked in purple.
		`id="chart-latency-run-2"`, `id="chart-latency-run-4"`, `<h3>Run 4: Ack latency over time`,
		`"formatter":"k2 leads","color":"#6a1b9a"`,
		`"formatter":"read, line 38"`, `"formatter":"final read"`, `"outerBoundsContain":"all"`,
		// The summary: lost by the final read, with every loss's proof for run 1.
		`<th>lost</th><th>unseen</th><th>duplicates</th><th>failed</th><th>unknown</th><th>unknown but present</th><th>failed but present</th>`,
		`<td class="l">final read</td>`,
		`<details class="proof" open><summary>run 1: 10 lost</summary>`,
		`<tr><td class="l"><code>m-011</code> … <code>m-020</code> <span class="muted">(10)</span></td><td>0</td><td>10–19</td><td>20</td><td class="l"><code>sentinel-r1</code></td></tr>`,
		`<details class="proof"><summary>run 3: 20 lost</summary>`,
		`<pre class="src after"><code>final read</code></pre>`,
		`<pre class="src kafka">`, `<pre class="src sh">`, `<details class="out run-2">`,
		`Shrinking ISR from 3,1,2 to 1.`,
		`<span class="expect held">✓ held (was 10)</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	if strings.Contains(page, `id="chart-throughput`) {
		t.Errorf("a throughput chart for 20 to 30 messages a run")
	}
	if n := strings.Count(page, `<div class="out run-1">`); n != 6 {
		t.Errorf("%d blocks with run 1 open, want 6 (4 kafka, 1 sh, the final read)", n)
	}
	if n := strings.Count(page, `<details class="out run-`); n != 18 {
		t.Errorf("%d folded runs, want 18 (6 blocks × runs 2..4)", n)
	}
}

// TestRenderFromResultsAlone renders with nothing but results.json: no
// cluster, no Kafka, no runbook copy.
func TestRenderFromResultsAlone(t *testing.T) {
	site := t.TempDir()
	dir := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261129T213500Z")
	os.Remove(filepath.Join(dir, "runbook.md"))
	t.Setenv("PATH", "")
	t.Setenv("KAFKA_HOME", "")
	if err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	page := string(b)
	for _, want := range []string{"is missing from this evidence", "produce acks1 --acks 1 --count ${count}", `id="chart-latency"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestRenderFromEvents renders a crashed run from its events.jsonl alone.
func TestRenderFromEvents(t *testing.T) {
	full, err := results.Load("testdata/acks")
	if err != nil {
		t.Fatal(err)
	}
	site := t.TempDir()
	dir := filepath.Join(site, "producer-acks", "kafka-4.3.1", "20261129T213500Z")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := results.CreateEvents(filepath.Join(dir, results.EventsFileName))
	if err != nil {
		t.Fatal(err)
	}
	w.Emit(results.KindStart, 0, results.StartEvent{Title: full.Title, Runbook: full.Runbook, Provenance: full.Provenance})
	run := full.Runs[0]
	w.Emit(results.KindRunStart, 1, results.RunStartEvent{Start: run.Start})
	for _, m := range run.Topics[0].All() {
		w.Emit(results.KindMessage, 1, results.MessageEvent{Topic: run.Topics[0].Name, Label: "acks1", Message: m})
	}
	for _, f := range run.Faults[:3] {
		w.Emit(results.KindFault, 1, f)
	}
	w.Close()
	if err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	page := string(b)
	for _, want := range []string{"Incomplete evidence", "expectations held in 0 of 1 runs", "not read in this run"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestStepsMatchBlocksByPosition: the engine numbers blocks its own way
// (runbook.Doc.Blocks counts prose too); the notebook places steps by their
// file:line:col, so another numbering renders the same page.
func TestStepsMatchBlocksByPosition(t *testing.T) {
	site := t.TempDir()
	a := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261129T213500Z")
	b := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261129T213600Z")
	r, err := results.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Runs {
		for j := range r.Runs[i].Steps {
			r.Runs[i].Steps[j].Block = 2*r.Runs[i].Steps[j].Block + 1
		}
	}
	if err := r.Write(b); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{a, b} {
		if err := Render(d, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	pa, _ := os.ReadFile(filepath.Join(a, IndexFile))
	pb, _ := os.ReadFile(filepath.Join(b, IndexFile))
	if !bytes.Equal(pa, pb) {
		t.Errorf("block numbering changed the notebook")
	}
	if !strings.Contains(string(pa), "created acks1 (partitions=1 replicas=1:2:3)") {
		t.Errorf("step output missing")
	}
}

// TestSchema1 renders evidence written by schema 1 (no final read): the
// page says how it was judged, and what its last reads could not see is
// unseen, never lost.
func TestSchema1(t *testing.T) {
	site := t.TempDir()
	dir := mkRunDir(t, "testdata/v1", site, "producer-acks", "4.0.0", "20261129T200000Z")
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	page := string(b)
	for _, want := range []string{
		"This evidence was written by schema 1, before kafkabook made a final read on a healed cluster",
		`<span class="warn" title="examples/producer-acks.md:38:1">line 38, a snapshot</span>`,
		`<td>0</td><td class="warn">10</td>`, // lost 0, unseen 10
		`<details class="proof" open><summary>run 1: 10 unseen, by the last read (line 38, a snapshot)</summary>`,
		`"formatter":"read, line 38"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(page, `"formatter":"final read"`) {
		t.Errorf("a final read is marked on a page that has none")
	}
	idx, _ := os.ReadFile(filepath.Join(site, IndexFile))
	for _, want := range []string{"<td>0*, 0*, 0*, 0*<br><span class=\"muted\">unseen 10, 10, 20, 20</span></td>", "* No final read on a healed cluster"} {
		if !strings.Contains(string(idx), want) {
			t.Errorf("index lacks %s", want)
		}
	}
}

// TestOutcomes: every kind of outcome reaches the table, the proofs and the
// stacked chart: a loss of an acks=0 message, a record someone else wrote
// found where a lost message was, failed and unknown sends found in the
// log, duplicates (sentinels, which share one value, are not), an offset
// two reads saw holding different messages.
func TestOutcomes(t *testing.T) {
	r, err := results.Load("testdata/acks")
	if err != nil {
		t.Fatal(err)
	}
	run := &r.Runs[0]
	f := &run.Final[1] // acksall: 20 present
	run.Topics[1] = run.Topics[1].Expanded()
	msgs := run.Topics[1].Messages
	msgs[17].Status, msgs[18].Status, msgs[19].Status = results.StatusFailed, results.StatusUnknown, results.StatusUnknown
	f.Acked, f.Failed, f.Unknown, f.Present = 17, 1, 2, 16
	f.FailedPresent, f.UnknownPresent = []string{"m-018"}, []string{"m-019"}
	f.Lost = []results.Loss{{ID: "m-001", Partition: 0, Offset: -1, HighWatermark: 21}, {ID: "m-002", Partition: 0, Offset: 1, HighWatermark: 21, Found: "x-9"}}
	f.Duplicates = []results.Duplicate{{ID: "m-003", Offsets: []int64{2, 20}}, {ID: "sentinel-r1", Offsets: []int64{21, 22}}}
	f.Inconsistent = []results.Inconsistency{{Partition: 0, Offset: 4, IDs: []string{"m-005", "m-007"}}}
	dir := writeRun(t, r, mustRead(t, "testdata/acks/runbook.md"))
	if err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	page := string(b)
	for _, want := range []string{
		// acked, lost, unseen, duplicates, failed, unknown, unknown but present, failed but present
		`<td>1</td><td>17</td><td class="bad" title="m-001 m-002">2</td><td>0</td><td class="warn">1</td><td>1</td><td>2</td><td class="warn">1</td><td class="bad">1</td>`,
		`<summary>run 1: 2 lost, 1 duplicated, 1 unknown but present, 1 failed but present, 1 inconsistent offsets</summary>`,
		`<tr><td class="l"><code>m-001</code></td><td>0</td><td>none (acks=0)</td><td>21</td><td class="l">nothing</td></tr>`,
		`<tr><td class="l"><code>m-002</code></td><td>0</td><td>1</td><td>21</td><td class="l"><code>x-9</code></td></tr>`,
		`<code>m-003 at offsets 2, 20</code>`,
		`Sent with an unknown outcome, and in the log: <code>m-019</code>`,
		`Reported failed, and in the log anyway: <code>m-018</code>`,
		`partition 0 offset 4: m-005, then m-007`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(page, "sentinel-r1 at offsets") {
		t.Errorf("a sentinel is shown as a duplicate")
	}
	// The stacked chart's parts, from the (made up) tally: 16 present of
	// which 1 duplicated, 2 lost, 1 failed, 2 unknown.
	c := outcomeChart(r, r.Labels())
	series := c.Options["series"]
	js, _ := json.Marshal(series)
	for _, want := range []string{`"name":"present"`, `"name":"duplicated"`, `"stack":"outcome"`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("outcome series lack %s", want)
		}
	}
	fo := fateOf(*run, "acksall", *f)
	if fo != (fate{Present: 15, Duplicated: 1, Lost: 2, Unseen: 0, Failed: 1, Unknown: 2}) {
		t.Errorf("fate %+v", fo)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNotebookFromDoc: the notebook comes from runbook.Layout: front matter,
// prose as written (rendered, raw HTML omitted), a plain code block, step
// blocks with their outputs placed by position, and what ran after the
// last block.
func TestNotebookFromDoc(t *testing.T) {
	r, err := results.Load("testdata/acks")
	if err != nil {
		t.Fatal(err)
	}
	src := mustRead(t, "testdata/acks/runbook.md")
	doc := layout(r, []byte(src))
	cells := notebook(doc, r)
	var kinds []string
	for _, c := range cells {
		if c.Code != nil {
			kinds = append(kinds, c.Code.Lang)
		} else {
			kinds = append(kinds, "prose")
		}
	}
	want := "yaml prose kafka prose kafka prose kafka prose kafka prose sh prose after"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("cells %s\nwant  %s", got, want)
	}
	if !strings.HasPrefix(cells[0].Code.Source, "title: Does acks=1") || !strings.HasSuffix(cells[0].Code.Source, "params: {count: 10}") {
		t.Errorf("front matter %q", cells[0].Code.Source)
	}
	if p := string(cells[1].Prose); !strings.Contains(p, "<h1>Does acks=1 lose acknowledged messages?</h1>") || !strings.Contains(p, "<strong>leader</strong>") {
		t.Errorf("prose %s", p)
	}
	if p := string(cells[len(cells)-2].Prose); !strings.Contains(p, "<table>") {
		t.Errorf("GFM table not rendered: %s", p)
	}
	read := cells[4].Code // the second kafka block
	if n := len(read.Runs[0].Steps); n != 8 {
		t.Errorf("%d steps of run 1 in the second block, want 8", n)
	}
	if last := cells[len(cells)-1].Code; last.Source != "final read" || len(last.Runs) != 4 || last.Runs[0].Steps[0].Output[0] != "acks1:" {
		t.Errorf("after-cell %+v", last)
	}
}
