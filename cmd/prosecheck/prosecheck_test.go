package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/evidence"
	"github.com/kafkabook/kafkabook/report"
)

const fixtures = "testdata/output"

// TestRightCounts: every form of claim, stated as the fixture has it,
// passes.
func TestRightCounts(t *testing.T) {
	var out bytes.Buffer
	if !check(&out, fixtures, "", false, []string{"testdata/right.md"}) {
		t.Fatalf("claims the fixture backs were refused:\n%s", out.String())
	}
	if want := "22 claims in 8 markers and 0 evidence blocks of 1 files: all match"; !strings.Contains(out.String(), want) {
		t.Errorf("summary: got %q, want it to contain %q", out.String(), want)
	}
}

// TestWrongCountFails: a count the evidence contradicts fails the check,
// at the marker's line, with what the evidence says instead.
func TestWrongCountFails(t *testing.T) {
	var out bytes.Buffer
	if check(&out, fixtures, "", false, []string{"testdata/wrong.md"}) {
		t.Fatalf("a wrong count passed:\n%s", out.String())
	}
	for _, want := range []string{
		"testdata/wrong.md:3: evidence: demo/kafka-9.9.9/20260101T000000Z lost(t)=1 per run: want lost(t)=1 per run, evidence says 1, 2",
		// A timing is checked to the precision written: 19.26 s is
		// 19.3 s, not 19.2 s.
		// An order the run does not show: the kill came 3 s before.
		"testdata/wrong.md:6: evidence: demo/kafka-9.9.9/20260101T000000Z runs(log(k1: Shrinking ISR) < fault(kill k2))=1: want runs(log(k1: Shrinking ISR) < fault(kill k2))=1, evidence says 0 (fault(kill k2) after log(k1: Shrinking ISR), run by run: -3s, –)",
		// A log line claimed in more runs than kept it.
		"testdata/wrong.md:5: evidence: demo/kafka-9.9.9/20260101T000000Z runs(log(k1: Shrinking ISR))=2: want runs(log(k1: Shrinking ISR))=2, evidence says 1 (demo/kafka-9.9.9/20260101T000000Z run 1)",
		// A bound the runs do not give: 2 of 2 is at least 22.4%.
		"bound(runs_lost(t))=30%..100%: want bound(runs_lost(t))=30%..100%, evidence says 22.4%..100% (2 of 2)",
		"testdata/wrong.md:4: evidence: demo/kafka-9.9.9/20260101T000000Z max(t)=16.0s..19.2s: want max(t)=16.0s..19.2s, evidence says 16s..19.26s (19.26s, 16s)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("got\n%s\nwant a line\n%s", out.String(), want)
		}
	}
}

// TestBadMarkers: a marker the check cannot evaluate fails it, with the
// reason, rather than being skipped.
func TestBadMarkers(t *testing.T) {
	var out bytes.Buffer
	if check(&out, fixtures, "", false, []string{"testdata/bad.md"}) {
		t.Fatalf("bad markers passed:\n%s", out.String())
	}
	for _, want := range []string{
		"bad.md:3: evidence: demo/kafka-9.9.9/latest runs=2: run directory demo/kafka-9.9.9/latest is a `latest` copy",
		"bad.md:4: evidence: demo/kafka-9.9.9/20260101T000000Z lost(t)=2: claim \"lost(t)=2\": say per run or total",
		"bad.md:5: evidence: demo/kafka-9.9.9/20260101T000000Z lost(nosuch)=0 per run: lost(nosuch) has no value in run 1",
		"bad.md:6: evidence: demo/kafka-9.9.9/20260101T000000Z lots(t)=0 per run: unknown measure lots",
		"bad.md:7: evidence: demo/kafka-9.9.9/20991231T000000Z runs=1: run directory demo/kafka-9.9.9/20991231T000000Z (under testdata/output)",
		"bad.md:8: evidence: lost(t)=1 per run: no run directory",
		"bad.md:9: evidence marker not closed on its line",
		"bad.md:10: evidence: demo/kafka-9.9.9/20260101T000000Z acked(t)+failed(t)={m-001} per run: claim \"acked(t)+failed(t)={m-001} per run\": acked(t)+failed(t) counts no ids",
		"bad.md:11: evidence: demo/kafka-9.9.9/20260101T000000Z max(t)=19 per run: claim \"max(t)=19 per run\": max(t): \"19\": a latency needs its unit (19.3s, 120ms)",
		"bad.md:12: evidence: demo/kafka-9.9.9/20260101T000000Z lost(t)=1s per run: claim \"lost(t)=1s per run\": lost(t): \"1s\": a count is a whole number",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no line %q in\n%s", want, out.String())
		}
	}
}

// TestEvidenceBlocks: a pasted evidence block passes while it is what
// kafkabook evidence prints for its run, and fails, naming the line, once
// a number in it is changed.
func TestEvidenceBlocks(t *testing.T) {
	dir := t.TempDir()
	run, err := filepath.Abs(filepath.Join(fixtures, "demo", "kafka-9.9.9", "20260101T000000Z"))
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.ToSlash(rel) + "/" + report.IndexFile
	res, sum, err := report.ReadResults(run)
	if err != nil {
		t.Fatal(err)
	}
	var blk bytes.Buffer
	if err := evidence.Summarize(res, sum, link).Markdown(&blk); err != nil {
		t.Fatal(err)
	}
	pasted := strings.Replace(blk.String(), "#### Evidence: ", "#### Evidence A: ", 1)
	adr := filepath.Join(dir, "adr.md")
	os.WriteFile(adr, []byte("# A decision\n\n"+pasted+"\nMore prose.\n"), 0o644)
	var out bytes.Buffer
	if !check(&out, fixtures, "", false, []string{adr}) || !strings.Contains(out.String(), "1 evidence blocks") {
		t.Fatalf("a block as printed was refused:\n%s", out.String())
	}
	changed := strings.Replace(pasted, "| 2 |", "| 3 |", 1)
	if changed == pasted {
		t.Fatalf("the fixture's block has no cell 2 to change:\n%s", pasted)
	}
	os.WriteFile(adr, []byte("# A decision\n\n"+changed), 0o644)
	out.Reset()
	if check(&out, fixtures, "", false, []string{adr}) || !strings.Contains(out.String(), "adr.md:3: evidence block A: line ") {
		t.Errorf("a changed block passed:\n%s", out.String())
	}
}

// TestCited: with -examples, a marker must cite every published run of
// its cell that ran the runbook's current steps, and none of other steps,
// unless it says subset.
func TestCited(t *testing.T) {
	var out bytes.Buffer
	if check(&out, "testdata/cells/output", "testdata/cells/examples", false, []string{"testdata/cells/cited.md"}) {
		t.Fatalf("a partial citation passed:\n%s", out.String())
	}
	got := out.String()
	for _, want := range []string{
		"cited.md:3: evidence: demo/kafka-9.9.9/20260101T000000Z runs=2: demo/kafka-9.9.9/20260102T000000Z, published with the current steps and the same clients, is not cited",
		"cited.md:5: evidence: demo/kafka-9.9.9/20260101T000000Z (and 2 more) runs=6: demo/kafka-9.9.9/20260103T000000Z ran other steps than testdata/cells/examples/demo.md has now",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no line %q in\n%s", want, got)
		}
	}
	for _, line := range []string{"cited.md:4:", "cited.md:6:"} {
		if strings.Contains(got, line) {
			t.Errorf("%s refused:\n%s", line, got)
		}
	}
}

// TestTimings: a time between two things of a run, how long an ISR held,
// and a client's setting in force pass as the fixture has them and fail,
// with what the evidence says, when written otherwise.
func TestTimings(t *testing.T) {
	var out bytes.Buffer
	if check(&out, fixtures, "", false, []string{"testdata/timing.md"}) {
		t.Fatalf("wrong timings passed:\n%s", out.String())
	}
	got := out.String()
	for _, want := range []string{
		"timing.md:5: evidence: timing/kafka-9.9.9/20260101T000000Z gap(fault(start k2), log(k2: unfenced))=3s..4s: want gap(fault(start k2), log(k2: unfenced))=3s..4s, evidence says 3s..5s (3s, 5s)",
		"timing.md:6: evidence: timing/kafka-9.9.9/20260101T000000Z spell(t: [1])=7.5s..8.0s: want spell(t: [1])=7.5s..8.0s, evidence says 7.5s..8.5s (7.5s, 8.5s)",
		"timing.md:7: evidence: timing/kafka-9.9.9/20260101T000000Z config(java: request.timeout.ms)=10s: want config(java: request.timeout.ms)=10s, evidence says java 30000",
		"timing.md:8: evidence: timing/kafka-9.9.9/20260101T000000Z feature(eligible.leader.replicas.version)=0: want feature(eligible.leader.replicas.version)=0, evidence says 1",
		"10 claims in 6 markers",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no line %q in\n%s", want, got)
		}
	}
	for _, line := range []string{"timing.md:3:", "timing.md:4:"} {
		if strings.Contains(got, line) {
			t.Errorf("%s refused:\n%s", line, got)
		}
	}
}

// TestLint: a number the marker after it does not state, or with no
// marker at all, fails the lint; one stated there, quoted from the
// runbook's steps, in a code span or configuration, in the cited runs'
// release, date or commit, or in a source marker passes.
func TestLint(t *testing.T) {
	var out bytes.Buffer
	if check(&out, fixtures, "", true, []string{"testdata/lint.md"}) {
		t.Fatalf("uncovered numbers passed:\n%s", out.String())
	}
	got := out.String()
	for _, want := range []string{
		"lint.md:9: 4: the marker after it does not state it",
		"lint.md:12: 12: no marker ends its sentence",
		"lint.md:12: 40: no marker ends its sentence",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no line %q in\n%s", want, got)
		}
	}
	if n := strings.Count(got, "lint.md:"); n != 3 {
		t.Errorf("%d findings, want 3:\n%s", n, got)
	}
}

// TestSeededExamples: in a copy of a published example, a wrong timing, a
// wrong count of runs with a log line and a wrong order of events each
// fail the check, against the published evidence.
func TestSeededExamples(t *testing.T) {
	for _, c := range []struct {
		what, file string
		claim      *regexp.Regexp
		seed       func(string) string
	}{
		{"timing", "producer-idempotence.md", regexp.MustCompile(`max\(noidem\)=\d+\.\d+s\.\.\d+\.\d+s`), func(s string) string {
			return strings.Replace(s, "..", "..1", 1) // 18.7s becomes 118.7s
		}},
		{"log count", "producer-defaults.md", regexp.MustCompile(`runs\(log\(k1: Shrinking ISR\)\)=\d+`), func(s string) string { return s + "0" }},
		{"order", "consumer-commits.md", regexp.MustCompile(`runs\(deliver\(autoho: m-001\) < commit\(autoho: 10\)\)=\d+`), func(s string) string {
			return strings.Replace(s, "deliver(autoho: m-001) < commit(autoho: 10)", "commit(autoho: 10) < deliver(autoho: m-001)", 1)
		}},
	} {
		t.Run(c.what, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("..", "..", "examples", c.file))
			if err != nil {
				t.Fatal(err)
			}
			claim := c.claim.FindString(string(src))
			if claim == "" {
				t.Fatalf("examples/%s has no claim matching %s to seed", c.file, c.claim)
			}
			seeded := c.seed(claim)
			dir := t.TempDir()
			path := filepath.Join(dir, c.file)
			for _, s := range []string{string(src), strings.Replace(string(src), claim, seeded, 1)} {
				os.WriteFile(path, []byte(s), 0o644)
				var out bytes.Buffer
				ok := check(&out, filepath.Join("..", "..", "output"), "", false, []string{path})
				switch {
				case s == string(src) && !ok:
					t.Fatalf("the example as published fails:\n%s", out.String())
				case s != string(src) && (ok || !strings.Contains(out.String(), "want "+seeded)):
					t.Errorf("the seeded %s %q passed or was not named:\n%s", c.what, seeded, out.String())
				}
			}
		})
	}
}

// TestSweepBlock: a pasted sweep block passes while it is what kafkabook
// evidence --sweep prints for the site its settings link points into,
// and fails once a cell is changed.
func TestSweepBlock(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(fixtures, "demo", "kafka-9.9.9", "20260101T000000Z", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, combo := range []string{"1", "all"} {
		var r map[string]any
		if err := json.Unmarshal(src, &r); err != nil {
			t.Fatal(err)
		}
		rb := r["runbook"].(map[string]any)
		rb["name"], rb["sweep"], rb["combination"] = "sw.acks-"+combo, "sw", "acks="+combo
		run := filepath.Join(dir, "site", "sw.acks-"+combo, "kafka-9.9.9", "20260101T000000Z")
		os.MkdirAll(run, 0o755)
		data, _ := json.Marshal(r)
		if err := os.WriteFile(filepath.Join(run, "results.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := report.LoadSweep(filepath.Join(dir, "site"), "sw", "site/sw.settings.html")
	if err != nil {
		t.Fatal(err)
	}
	var blk bytes.Buffer
	if err := s.Markdown(&blk); err != nil {
		t.Fatal(err)
	}
	adr := filepath.Join(dir, "adr.md")
	os.WriteFile(adr, []byte("# A decision\n\n"+blk.String()+"\nMore prose.\n"), 0o644)
	var out bytes.Buffer
	if !check(&out, fixtures, "", false, []string{adr}) || !strings.Contains(out.String(), "1 evidence blocks") {
		t.Fatalf("a sweep block as printed was refused:\n%s\n%s", out.String(), blk.String())
	}
	changed := strings.Replace(blk.String(), "| 2 |", "| 3 |", 1)
	if changed == blk.String() {
		t.Fatalf("the block has no cell 2 to change:\n%s", blk.String())
	}
	os.WriteFile(adr, []byte("# A decision\n\n"+changed), 0o644)
	out.Reset()
	if check(&out, fixtures, "", false, []string{adr}) || !strings.Contains(out.String(), "adr.md:3: evidence block sweep sw: line ") {
		t.Errorf("a changed sweep block passed:\n%s", out.String())
	}
}

// TestElectionsClaim: how the last replica standing got its leader back,
// claimed of published power-loss runs, is checked against explain's
// reading of them: clean on 4.0.0, KIP-966's fallback on 4.1.0.
func TestElectionsClaim(t *testing.T) {
	md := filepath.Join(t.TempDir(), "elections.md")
	text := "A clean election. <!-- evidence: power-loss/kafka-4.0.0/20261130T081022Z elections(plast)=clean per run -->\n\n" +
		"The fallback. <!-- evidence: power-loss/kafka-4.1.0/20261130T083432Z elections(plast)=last-known-leader per run -->\n\n" +
		"Wrong. <!-- evidence: power-loss/kafka-4.0.0/20261130T081022Z elections(plast)=last-known-leader per run -->\n"
	if err := os.WriteFile(md, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if check(&out, filepath.Join("..", "..", "output"), "", false, []string{md}) {
		t.Fatalf("a wrong elections claim passed:\n%s", out.String())
	}
	got := out.String()
	if want := "elections.md:5: evidence: power-loss/kafka-4.0.0/20261130T081022Z elections(plast)=last-known-leader per run: want elections(plast)=last-known-leader per run, evidence says clean"; !strings.Contains(got, want) {
		t.Errorf("no line %q in\n%s", want, got)
	}
	for _, line := range []string{"elections.md:1:", "elections.md:3:"} {
		if strings.Contains(got, line) {
			t.Errorf("%s refused:\n%s", line, got)
		}
	}
}
