package report

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/explain"
	"github.com/kafkabook/kafkabook/results"
)

// TestWhySectionGolden renders the acks fixture and compares its why
// section with a golden file: each run's loss with its cause (the clean
// election of k2, then k1 truncating to offset 10), the statements, and
// every line linked to its row under "all lines".
func TestWhySectionGolden(t *testing.T) {
	site := t.TempDir()
	dir := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261129T213500Z")
	if err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	page := mustRead(t, filepath.Join(dir, IndexFile))
	why := section(t, page, `<h2 id="why">`, `<h2 id="charts">`)
	golden(t, "why.html", []byte(why))

	// The structure, stated outright so a careless -update cannot drop it.
	for _, want := range []string{
		`<details class="why" open><summary>run 1: acks1: clean election of k2 with its log ending at offset 10 after isolation of k2, k3 and kill of k1; k1 truncated to offset 10</summary>`,
		`<strong>lost acks1 partition 0: m-011..m-020 (offsets 10..19)</strong>`,
		`<li>k2 was in that ISR: a clean election.</li>`,
		`<a href="#log-1-20"><code>[UnifiedLog partition=acks1-r1-0, dir=$KAFKABOOK_STATE/k1/data] Truncating to offset 10</code></a>`,
		`<details class="unrecognised"><summary>9 lines that look relevant and match no pattern</summary>`,
		`<details class="why"><summary>run 4: acks1: clean election of k2 with its log ending at offset 0`,
	} {
		if !strings.Contains(why, want) {
			t.Errorf("why section lacks %s", want)
		}
	}
	assertAnchors(t, page)
}

// assertAnchors checks that every link of the why section leads to a row
// of the page, and that no row carries an id nothing links to.
func assertAnchors(t *testing.T, page string) {
	t.Helper()
	links := regexp.MustCompile(`href="#(log-\d+-\d+)"`).FindAllStringSubmatch(page, -1)
	if len(links) == 0 {
		t.Fatal("the why section links to no log line")
	}
	linked := map[string]bool{}
	for _, l := range links {
		linked[l[1]] = true
		if !strings.Contains(page, `<tr id="`+l[1]+`">`) {
			t.Errorf("link to #%s, and no row has that id", l[1])
		}
	}
	for _, m := range regexp.MustCompile(`<tr id="(log-\d+-\d+)">`).FindAllStringSubmatch(page, -1) {
		if !linked[m[1]] {
			t.Errorf("row %s has an id nothing links to", m[1])
		}
	}
}

// readExplainRun reads one of internal/explain's trimmed published runs.
func readExplainRun(t *testing.T, name string) *results.Results {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "internal", "explain", "testdata", name+".json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var r results.Results
	if err := json.NewDecoder(zr).Decode(&r); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &r
}

// renderSection renders r's page from its results alone and returns the
// part between two headings.
func renderSection(t *testing.T, r *results.Results, from, to string) string {
	t.Helper()
	tm, err := tmpl()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tm.ExecuteTemplate(&buf, "report.html.tmpl", buildReport(r, source{Note: "no runbook"}, head{})); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	assertAnchors(t, page)
	return section(t, page, from, to)
}

// TestWhyPublishedPowerLoss explains the published 4.4.0 power-loss run:
// the last-known-leader election of k3 (logged as unclean), with the
// controller's own line linked to the log section.
func TestWhyPublishedPowerLoss(t *testing.T) {
	r := readExplainRun(t, "power-loss-4.4.0")
	why := renderSection(t, r, `<h2 id="why">`, `<h2 id="charts">`)
	golden(t, "why-power-loss.html", []byte(why))
	for _, want := range []string{
		`<strong>lost pall partition 0: m-001..m-1000 (offsets 0..999)</strong> <span class="muted">(1000)</span> — last-known-leader election of k3 (logged as unclean)`,
		`KIP-966&#39;s last-known-leader fallback, which Kafka logs as unclean.`,
		`Setting new leader for topicId QK8SOB_aQeCHo7ffwK7ffw, partition 0 to 3 using an unclean election.`,
	} {
		if !strings.Contains(why, want) {
			t.Errorf("why section lacks %s", want)
		}
	}
}

// TestWhyLaterRunsCauseOnly: runs after the fifth give each finding's
// cause, without statements or lines, so a page of many runs stays small.
func TestWhyLaterRunsCauseOnly(t *testing.T) {
	r, err := results.Load("testdata/acks")
	if err != nil {
		t.Fatal(err)
	}
	base := append([]results.Run(nil), r.Runs...)
	for len(r.Runs) < 8 {
		run := base[len(r.Runs)%len(base)]
		run.Number = len(r.Runs) + 1
		r.Runs = append(r.Runs, run)
	}
	why, anchors := whyOf(r, explainRuns(r))
	if len(why) != 8 {
		t.Fatalf("%d runs explained, want 8", len(why))
	}
	for i, w := range why {
		full := i < whyFullRuns
		if w.Full != full || len(w.Findings) != 1 || w.Findings[0].Cause == "" {
			t.Errorf("run %d: full %v, %d findings (cause %q), want full %v and one finding with its cause", w.Run, w.Full, len(w.Findings), w.Findings[0].Cause, full)
		}
		if hasSteps := len(w.Findings[0].Steps) > 0; hasSteps != full {
			t.Errorf("run %d: statements shown %v, want %v", w.Run, hasSteps, full)
		}
		if !full && (len(w.Unrecognised) > 0 || w.MoreUnrecognised != 9 || len(anchors[w.Run]) > 0) {
			t.Errorf("run %d: %d unrecognised lines shown (%d more), %d anchors; want none shown, 9 counted", w.Run, len(w.Unrecognised), w.MoreUnrecognised, len(anchors[w.Run]))
		}
	}
}

// TestWhyNotVisible: a run whose logs were not captured says the cause is
// not visible, never a guess.
func TestWhyNotVisible(t *testing.T) {
	r, err := results.Load("testdata/acks")
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Runs {
		r.Runs[i].Logs, r.Runs[i].ISR = nil, nil
	}
	why, _ := whyOf(r, explainRuns(r))
	if len(why) == 0 || len(why[0].Findings) == 0 {
		t.Fatal("no finding for a run that lost messages")
	}
	if c := why[0].Findings[0].Cause; c != explain.NotVisible {
		t.Errorf("cause %q, want %q", c, explain.NotVisible)
	}
}

func TestWhyHeadline(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"", ""}, ""},
		{[]string{"a", "a", "", "b"}, "runs 1, 2: a; run 4: b"},
	} {
		if got := whyHeadline(c.in); got != c.want {
			t.Errorf("whyHeadline(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSiteWhyRow: the index shows each release's causes under its
// verdict, and marks the release whose causes differ from the one before.
func TestSiteWhyRow(t *testing.T) {
	site, dirs := fixtureSite(t)
	r, err := results.Load(dirs[0]) // 4.0.0: pretend its logs were lost
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Runs {
		r.Runs[i].Logs, r.Runs[i].ISR = nil, nil
	}
	if err := r.Write(dirs[0]); err != nil {
		t.Fatal(err)
	}
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	index := mustRead(t, filepath.Join(site, IndexFile))
	for _, want := range []string{
		`<tr class="why"><td></td><td class="l" colspan="99"><span class="whylabel">why:</span> runs 1, 2, 3, 4: acks1: cause not visible in the evidence</td></tr>`,
		`<tr class="why changed"><td></td><td class="l" colspan="99"><span class="whylabel">why:</span> runs 1, 2, 3, 4: acks1: clean election of k2 after isolation of k2, k3 and kill of k1 <span class="warn">(the causes differ from 4.0.0’s)</span></td></tr>`,
		`; why: runs 1, 2, 3, 4: acks1: clean election of k2 after isolation of k2, k3 and kill of k1</li>`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("index lacks %s", want)
		}
	}
	// The causes travel in summary.json: an update takes another run's
	// from there, without explaining it again. A cause planted in 4.0.0's
	// summary shows after an update of 4.3.1.
	sum := mustRead(t, filepath.Join(dirs[1], SummaryFile))
	if !strings.Contains(sum, `"Why":["acks1: clean election of k2 after isolation of k2, k3 and kill of k1",`) {
		t.Errorf("summary.json lacks the causes: %.300s", sum)
	}
	p := filepath.Join(dirs[0], SummaryFile)
	planted := strings.Replace(mustRead(t, p), `"acks1: cause not visible in the evidence",`, `"acks1: planted",`, 1)
	if err := os.WriteFile(p, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := UpdateSite(site, dirs[1], Options{}); err != nil {
		t.Fatal(err)
	}
	if index := mustRead(t, filepath.Join(site, IndexFile)); !strings.Contains(index, "run 1: acks1: planted; runs 2, 3, 4: acks1: cause not visible in the evidence") {
		t.Errorf("the update did not take 4.0.0's causes from its summary.json")
	}
}

// TestBrowserWhyLinks follows a why section's link to a line of a run
// whose log section is folded: Chromium opens the folded sections and
// scrolls the line into view, and nothing on the page overlaps.
func TestBrowserWhyLinks(t *testing.T) {
	needChromium(t)
	dir := acksDir(t)
	if err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	pc := browseEval(t, filepath.Join(dir, IndexFile), `(async () => {
  const why = document.querySelector('details.why:not([open])');
  why.open = true;
  const link = why.querySelector('a[href^="#log-"]');
  link.click();
  await new Promise(r => setTimeout(r, 300));
  const row = document.getElementById(link.getAttribute('href').slice(1));
  const r = row.getBoundingClientRect();
  return link.getAttribute('href') + ":" + (r.height > 0 && Math.abs(r.top) < 5 ? "shown" : "hidden top=" + r.top);
})()`)
	assertClean(t, "why links", pc, pageCharts)
	if pc.Eval != "#log-2-9:shown" {
		t.Errorf("following run 2's first why link: %s, want #log-2-9:shown", pc.Eval)
	}
}

// TestWhyChangeIsASetChange: a release whose runs share the causes of the
// release before is not marked, however many runs show each cause; a new
// cause is.
func TestWhyChangeIsASetChange(t *testing.T) {
	c := "acks1: clean election of k2 after isolation of k2, k3 and kill of k1"
	vs := []siteVersion{
		{Kafka: "4.2.2", Latest: siteEntry{Causes: distinctCauses([]string{c})}},
		{Kafka: "4.3.0", Latest: siteEntry{Causes: distinctCauses([]string{c, "", c})}},
		{Kafka: "4.3.1", Latest: siteEntry{Causes: distinctCauses([]string{c, "plast: last-known-leader election of k1"})}},
	}
	markWhyChanges(vs)
	if vs[1].Latest.WhyFrom != "" {
		t.Errorf("4.3.0 marked as changed from %s: the same cause in more runs is no change", vs[1].Latest.WhyFrom)
	}
	if vs[2].Latest.WhyFrom != "4.3.0" {
		t.Errorf("4.3.1: a new cause not marked (WhyFrom %q)", vs[2].Latest.WhyFrom)
	}
}
