package report

import (
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
		`<td>10, 10, 20, 20</td>`, `<td>10, 10, 10, 10</td>`,
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
