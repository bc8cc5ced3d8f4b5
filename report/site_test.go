package report

import (
	"errors"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/results"
)

func copyFiles(t testing.TB, from, to string) {
	t.Helper()
	for _, name := range []string{results.FileName, "runbook.md"} {
		b, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fixtureSite lays out a site with the acks fixture as Kafka 4.3.1 (two runs
// of it, the newer one last) and a variant as Kafka 4.0.0. It returns the
// site and the run directories: 4.0.0, 4.3.1 newest, 4.3.1 older.
func fixtureSite(t testing.TB) (string, []string) {
	t.Helper()
	site := t.TempDir()
	newer := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261129T213500Z")
	older := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261128T080000Z")
	old := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.0.0", "20261129T200000Z")
	r, err := results.Load(old)
	if err != nil {
		t.Fatal(err)
	}
	r.Provenance.Kafka = "4.0.0"
	for i := range r.Runs { // pretend 4.0.0 lost 10 every time
		for j := range r.Runs[i].Final {
			if f := &r.Runs[i].Final[j]; f.Label == "acks1" {
				f.Present += len(f.Lost) - 10
				f.Lost = f.Lost[len(f.Lost)-10:]
			}
		}
	}
	if err := r.Write(old); err != nil {
		t.Fatal(err)
	}
	return site, []string{old, newer, older}
}

func TestRenderSite(t *testing.T) {
	site, dirs := fixtureSite(t)
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !fileExists(filepath.Join(d, IndexFile)) {
			t.Errorf("%s not rendered", d)
		}
	}
	for _, a := range []string{assetJS, assetLicense, assetNotice} {
		if !fileExists(filepath.Join(site, assetsDir, a)) {
			t.Errorf("assets/%s missing", a)
		}
	}
	link := filepath.Join(site, "producer-acks", "kafka-4.3.1", LatestLink)
	if target, err := os.Readlink(link); err != nil || target != "20261129T213500Z" {
		t.Errorf("latest -> %q, %v; want 20261129T213500Z", target, err)
	}
	idx, err := os.ReadFile(filepath.Join(site, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	page := string(idx)
	for _, want := range []string{
		`href="producer-acks/kafka-4.3.1/20261129T213500Z/index.html"`,
		`href="producer-acks/kafka-4.3.1/20261128T080000Z/index.html"`,
		`href="producer-acks/kafka-4.0.0/20261129T200000Z/index.html"`,
		`<td>10, 10, 20, 20<br><span class="muted" title="4 of 4 runs lost any: the rate is at least 47.3% (95% confidence)">runs losing: ≥ 47.3%</span></td>`,
		`<td>10, 10, 10, 10<br><span class="muted"`,
		`id="chart-rb1-lost"`, `id="chart-rb1-p99"`,
		`src="assets/echarts.min.js"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("site index lacks %s", want)
		}
	}
	if i, j := strings.Index(page, "<strong>4.0.0</strong>"), strings.Index(page, "<strong>4.3.1</strong>"); i < 0 || j < i {
		t.Errorf("versions not in order 4.0.0, 4.3.1")
	}
	report, _ := os.ReadFile(filepath.Join(dirs[1], IndexFile))
	for _, want := range []string{`src="../../../assets/echarts.min.js"`, `href="../../../index.html"`} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report lacks %s", want)
		}
	}

	// Re-rendering leaves the assets alone and moves latest to a newer run.
	st, _ := os.Stat(filepath.Join(site, assetsDir, assetJS))
	mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261130T010000Z")
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	if target, _ := os.Readlink(link); target != "20261130T010000Z" {
		t.Errorf("latest -> %q after a newer run", target)
	}
	st2, _ := os.Stat(filepath.Join(site, assetsDir, assetJS))
	if !st2.ModTime().Equal(st.ModTime()) {
		t.Errorf("assets rewritten on re-render")
	}
}

func TestLessVersion(t *testing.T) {
	in := []string{"4.10.0", "4.3.1", "4.0.0", "3.9.1", "4.3.0-rc1", "4.3"}
	want := "3.9.1 4.0.0 4.3 4.3.0-rc1 4.3.1 4.10.0"
	sortVersions(in)
	if got := strings.Join(in, " "); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestBrokenOlderRun: after a run, the site is updated; an older run
// directory whose evidence cannot be read (broken JSON, a schema from the
// future) is a warning naming it, never a failure, its page is removed,
// and the new run's page and the index are written.
func TestBrokenOlderRun(t *testing.T) {
	site, dirs := fixtureSite(t)
	broken := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261101T000000Z")
	future := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.2.0", "20261102T000000Z")
	if err := os.WriteFile(filepath.Join(broken, results.FileName), []byte(`{"schema": 2, "runs": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(future, results.FileName), []byte(`{"schema": 99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings []error
	opts := Options{Warn: func(err error) { warnings = append(warnings, err) }}
	// What cmd/kafkabook does after a run: the new run's page (an error
	// here fails the run) and the site from the other runs' summaries. A
	// stale page of the broken run is removed.
	stale := filepath.Join(broken, IndexFile)
	if err := os.WriteFile(stale, []byte("an old page"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := UpdateSite(site, dirs[1], opts); err != nil {
		t.Fatalf("UpdateSite failed for older runs: %v", err)
	}
	if fileExists(stale) {
		t.Errorf("the stale page of the broken run stays")
	}
	if len(warnings) != 2 {
		t.Fatalf("warnings %v, want two", warnings)
	}
	got := map[string]string{}
	for _, w := range warnings {
		var re *RunError
		if !errors.As(w, &re) {
			t.Fatalf("warning %v is not a *RunError", w)
		}
		got[re.Dir] = w.Error()
	}
	if !strings.Contains(got[broken], broken) || !strings.Contains(got[broken], "left out of the site") {
		t.Errorf("broken JSON: %q", got[broken])
	}
	if !errors.Is(warnings[0], results.ErrSchema) && !errors.Is(warnings[1], results.ErrSchema) {
		t.Errorf("no warning wraps results.ErrSchema: %v", warnings)
	}
	if !strings.Contains(got[future], "unsupported schema version 99") {
		t.Errorf("future schema: %q", got[future])
	}
	idx, err := os.ReadFile(filepath.Join(site, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(idx), "20261101T000000Z") || strings.Contains(string(idx), "4.2.0") {
		t.Errorf("the index lists a run it could not read")
	}
	if !strings.Contains(string(idx), "20261129T213500Z") {
		t.Errorf("the index lacks the new run")
	}

	// Without Warn the same problems are RenderSite's error, after
	// everything else was written.
	os.Remove(filepath.Join(site, IndexFile))
	err = RenderSite(site, Options{})
	if err == nil || !strings.Contains(err.Error(), "unsupported schema version 99") || !strings.Contains(err.Error(), broken) {
		t.Errorf("without Warn: %v", err)
	}
	if !fileExists(filepath.Join(site, IndexFile)) {
		t.Errorf("index not written")
	}
}

// TestRenderSiteOnRunDir: given a run directory, render renders its page
// and writes no site index over it.
func TestRenderSiteOnRunDir(t *testing.T) {
	dir := t.TempDir()
	copyFiles(t, "testdata/acks", dir)
	if err := RenderSite(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	if !strings.Contains(string(b), `id="chart-latency"`) || !strings.Contains(string(b), `src="assets/echarts.min.js"`) {
		t.Errorf("not the run's report, or assets not beside it")
	}
	if !fileExists(filepath.Join(dir, assetsDir, assetJS)) {
		t.Errorf("assets missing")
	}
}

// TestReleaseDifferences: an expectation that holds on one release and
// not on another is flagged on the index, and consecutive releases get a
// comparison page linked from it; a page for a pair no longer listed goes.
func TestReleaseDifferences(t *testing.T) {
	site, dirs := fixtureSite(t)
	r, err := results.Load(dirs[0]) // 4.0.0
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Runs[:2] {
		for j := range r.Runs[i].Expectations {
			r.Runs[i].Expectations[j].Held = false
		}
	}
	if err := r.Write(dirs[0]); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(site, "producer-acks", "compare-3.9.0-4.0.0.html")
	if err := os.WriteFile(stale, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	idx, _ := os.ReadFile(filepath.Join(site, IndexFile))
	page := string(idx)
	expr := r.Runs[0].Expectations[0].Expr
	for _, want := range []string{
		"Verdicts differ between releases",
		"<code>" + htmlEscape(expr) + "</code>: held on 4.3.1; not on 4.0.0 (2 of 4 runs)",
		`href="producer-acks/compare-4.0.0-4.3.1.html"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("site index lacks %s", want)
		}
	}
	cmp, err := os.ReadFile(filepath.Join(site, "producer-acks", "compare-4.0.0-4.3.1.html"))
	if err != nil || !strings.Contains(string(cmp), "Kafka 4.0.0 (20261129T200000Z)") {
		t.Errorf("comparison page: %v", err)
	}
	if fileExists(stale) {
		t.Errorf("a comparison page of releases no longer listed remains")
	}
}

func htmlEscape(s string) string { return template.HTMLEscapeString(s) }

// TestSiteClients: a run with a client other than franz-go, in its
// kafka-<version>-<client> directory, gets its own row in the index named
// by the release and the client, and its page names the client; the
// franz-go run of the same runbook is then named by its client too, in
// the rows, the charts' points and the comparison page, and the charts'
// axis says its points are release × client.
func TestSiteClients(t *testing.T) {
	site := t.TempDir()
	mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261129T213500Z")
	java := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1-java", "20261129T220000Z")
	r, err := results.Load(java)
	if err != nil {
		t.Fatal(err)
	}
	r.Provenance.Client = "java"
	r.Provenance.Clients = []results.ClientInfo{{Client: "java", Library: "kafka-clients", Version: "4.3.1", Runtime: "java 17",
		Config: map[string]string{"acks": "-1", "enable.idempotence": "true"}}}
	if err := r.Write(java); err != nil {
		t.Fatal(err)
	}
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	idx, _ := os.ReadFile(filepath.Join(site, IndexFile))
	for _, want := range []string{"<strong>4.3.1 · franz-go</strong>", "<strong>4.3.1 · java</strong>",
		`href="producer-acks/kafka-4.3.1-java/20261129T220000Z/index.html"`, `<th class="l">Kafka release · client</th>`,
		"Lost messages per run, by Kafka release and client", `"name":"Kafka release · client"`,
		`"data":["4.3.1 · franz-go","4.3.1 · java"]`, `"interval":"0"`,
		`<a href="producer-acks/compare-4.3.1-4.3.1-java.html">4.3.1 · franz-go → 4.3.1 · java</a>`} {
		if !strings.Contains(string(idx), want) {
			t.Errorf("site index lacks %s", want)
		}
	}
	if strings.Contains(string(idx), `"name":"Kafka"`) {
		t.Error(`a chart of release × client points has the axis "Kafka"`)
	}
	cmp, _ := os.ReadFile(filepath.Join(site, "producer-acks", "compare-4.3.1-4.3.1-java.html"))
	if want := "Kafka 4.3.1 · franz-go (20261129T213500Z)"; !strings.Contains(string(cmp), want) {
		t.Errorf("the comparison page lacks %q", want)
	}
	page, _ := os.ReadFile(filepath.Join(java, IndexFile))
	for _, want := range []string{"kafka-clients 4.3.1 on java 17; acks=-1 enable.idempotence=true",
		"— Kafka 4.3.1 · java</title>", "Kafka <strong>4.3.1</strong> · client <strong>java</strong>"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the java run's page lacks %q", want)
		}
	}
}
