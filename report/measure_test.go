package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// writeRun stores r and the runbook src as a run directory of a new site.
func writeRun(tb testing.TB, r *results.Results, src string) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), r.Runbook.Name, "kafka-4.3.1", "20261129T213500Z")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := r.Write(dir); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "runbook.md"), []byte(src), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

func acksDir(tb testing.TB) string {
	tb.Helper()
	src, err := os.ReadFile("testdata/acks/runbook.md")
	if err != nil {
		tb.Fatal(err)
	}
	return writeRun(tb, acksFixture(string(src)), string(src))
}

// TestPageSize keeps the large report within its budget: 100 runs × 10,000
// messages (a million latency points) in a page under 5 MB without the
// shared assets, which Chromium opens and draws when it is installed.
// Timing is reported, not asserted; see BenchmarkRenderLarge.
func TestPageSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a million-message fixture")
	}
	for _, tc := range []struct {
		name   string
		dir    func(testing.TB) string
		limit  int64
		charts int
	}{
		{"4 runs × 20 messages", acksDir, 1 << 20, pageCharts},
		// Time charts for the first maxTimeRuns runs only.
		{"100 runs × 10,000 messages", func(tb testing.TB) string { return writeRun(tb, synthetic(100, 10000), syntheticRunbook) }, 5 << 20, 4 + 2*maxTimeRuns},
	} {
		dir := tc.dir(t)
		start := time.Now()
		if err := Render(dir, Options{}); err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		fi, err := os.Stat(filepath.Join(dir, IndexFile))
		if err != nil {
			t.Fatal(err)
		}
		rj, _ := os.Stat(filepath.Join(dir, results.FileName))
		t.Logf("%s: render %v (load included), page %.2f MB, results.json %.1f MB", tc.name, took.Round(time.Millisecond),
			float64(fi.Size())/(1<<20), float64(rj.Size())/(1<<20))
		if fi.Size() > tc.limit {
			t.Errorf("%s: page is %d bytes, over %d", tc.name, fi.Size(), tc.limit)
		}
		// The page must also draw; TestBrowser enforces Chromium in CI.
		if _, err := os.Stat(chromiumPath); err == nil {
			start := time.Now()
			assertClean(t, tc.name, browse(t, filepath.Join(dir, IndexFile)), tc.charts)
			t.Logf("%s: opened and drawn in Chromium in %v (browser start included)", tc.name, time.Since(start).Round(time.Millisecond))
		}
	}
}

func benchRender(b *testing.B, dir string) {
	b.ReportAllocs()
	var size int64
	for b.Loop() {
		if err := Render(dir, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, IndexFile)); err == nil {
		size = fi.Size()
	}
	b.ReportMetric(float64(size), "page-bytes")
}

func BenchmarkRenderSmall(b *testing.B) { benchRender(b, acksDir(b)) }

func BenchmarkRenderLarge(b *testing.B) {
	benchRender(b, writeRun(b, synthetic(100, 10000), syntheticRunbook))
}

// BenchmarkRenderLargePage is BenchmarkRenderLarge without reading
// results.json: the cost of the page itself.
func BenchmarkRenderLargePage(b *testing.B) {
	dir := writeRun(b, synthetic(100, 10000), syntheticRunbook)
	ev, err := readRun(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := renderRun(dir, ev, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
