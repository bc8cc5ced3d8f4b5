package report

import (
	"bytes"
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
		`"formatter":"k2,k3 isolated"`, `"formatter":"k1 killed"`, `"sampling":"lttb"`,
		`"formatter":"read, line 38"`, `"formatter":"final read"`, `"outerBoundsContain":"all"`,
		// The summary: lost by the final read, with every loss's proof for run 1.
		`<th>lost</th><th>unseen</th><th>duplicates</th><th>failed</th><th>unknown</th><th>unknown but present</th><th>failed but present</th>`,
		`<td class="l">final read</td>`,
		`<details class="proof" open><summary>run 1: 10 lost</summary>`,
		`<tr><td class="l"><code>m-011</code></td><td>0</td><td>10</td><td>20</td><td class="l"><code>sentinel-r1</code></td></tr>`,
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
	for _, want := range []string{"could not be read", "produce acks1 --acks 1 --count ${count}", `id="chart-latency"`} {
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
	for _, m := range run.Topics[0].Messages {
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
