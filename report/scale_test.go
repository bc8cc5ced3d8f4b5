package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// failover is evidence of the load-through-failover shape, its ledgers in
// columns as the engine records them: runs × two experiments at rate
// messages a second for 30 s; k1 killed at 10 s, the new leader elected at
// 19 s (acks stop in between, then the waiting messages are acknowledged at
// once), k1 restarted at 29 s.
func failover(runs, rate int) *results.Results {
	r := &results.Results{Schema: results.SchemaVersion, Complete: true, Title: "Failover under load",
		Runbook:    results.Runbook{Name: "failover", File: "runbook.md"},
		Provenance: results.Provenance{Kafka: "4.3.1", Backend: "local", Nodes: 3, Start: fixtureStart, Repeat: runs}}
	gap := time.Second / time.Duration(rate)
	for n := 1; n <= runs; n++ {
		start := fixtureStart.Add(time.Duration(n-1) * time.Minute)
		run := results.Run{Number: n, Start: start, End: start.Add(40 * time.Second), Complete: true,
			Faults: []results.Fault{{At: start.Add(10 * time.Second), Op: "kill", Nodes: []string{"k1"}, Pos: "failover.md:9:1"},
				{At: start.Add(29 * time.Second), Op: "start", Nodes: []string{"k1"}, Pos: "failover.md:10:1"}}}
		for _, label := range []string{"acks1", "acksall"} {
			l := &results.Ledger{}
			acks, _ := results.ParseAcks(strings.TrimPrefix(label, "acks")) // 1 or all
			count := 30 * rate
			l.Grow(count)
			for i := 0; i < count; i++ {
				in := start.Add(2*time.Second + time.Duration(i)*gap)
				ack := in.Add(time.Duration(1+i%7) * time.Millisecond)
				if s := in.Sub(start); s >= 10*time.Second && s < 19*time.Second {
					ack = start.Add(19*time.Second + time.Duration(i%50)*time.Millisecond)
				}
				l.Add(int64(i+1), acks, false, in, ack, results.StatusOK, "", 0, int64(i), 0)
			}
			tp := results.Topic{Name: fmt.Sprintf("%s-r%d", label, n), Label: label, Ledger: l}
			run.Topics = append(run.Topics, tp)
			rd := &results.Records{}
			for i := 0; i < count; i++ {
				rd.Add([]byte(results.MessageID(int64(i+1))), 0, int64(i))
			}
			rd.Add([]byte(fmt.Sprintf("sentinel-r%d", n)), 0, int64(count))
			final := results.ClassifyRead(tp, rd, map[int32]int64{0: int64(count) + 1}, nil, true)
			final.At, final.Final = start.Add(38*time.Second), true
			run.Final = append(run.Final, final)
		}
		r.Runs = append(r.Runs, run)
	}
	r.Provenance.End = r.Runs[len(r.Runs)-1].End
	return r
}

const failoverRunbook = "---\ntitle: Failover under load\n---\n\n```kafka\nproduce acks1 --acks 1 --rate 500/s --for 30s &\n" +
	"produce acksall --acks all --rate 500/s --for 30s &\nsleep 8s\nkill k1\nstart k1\nwait producers\n```\n"

// islandOf returns the options of one chart of a page.
func islandOf(t *testing.T, page, id string) map[string]any {
	t.Helper()
	re := regexp.MustCompile(`<script type="application/json" class="chart-data" data-for="` + id + `">([^<]*)</script>`)
	m := re.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no data island for %s", id)
	}
	var o map[string]any
	if err := json.Unmarshal([]byte(m[1]), &o); err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return o
}

// points returns the [x, y] points of every series of a chart (nulls as
// NaN-free nil entries left out).
func points(o map[string]any) [][][2]float64 {
	var out [][][2]float64
	for _, s := range o["series"].([]any) {
		var pts [][2]float64
		for _, p := range s.(map[string]any)["data"].([]any) {
			xy := p.([]any)
			if xy[1] == nil {
				continue
			}
			pts = append(pts, [2]float64{xy[0].(float64), xy[1].(float64)})
		}
		out = append(out, pts)
	}
	return out
}

// The throughput chart shows the failover: acknowledgements stop while
// there is no leader and come back in a burst; the latency chart keeps the
// spike exact (the message that waited longest, 9 s) at a million
// messages, in about a thousand points a line.
func TestFailoverCharts(t *testing.T) {
	for _, tc := range []struct {
		name string
		rate int
	}{{"500 msg/s", 500}, {"a million messages", 1_000_000 / 60}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.rate > 1000 && testing.Short() {
				t.Skip("a million messages")
			}
			r := failover(1, tc.rate)
			dir := writeRun(t, r, failoverRunbook)
			if err := Render(dir, Options{}); err != nil {
				t.Fatal(err)
			}
			page := mustRead(t, filepath.Join(dir, IndexFile))
			if len(page) > 512<<10 {
				t.Errorf("page is %d bytes", len(page))
			}
			thr := points(islandOf(t, page, "chart-throughput"))
			if len(thr) != 2 {
				t.Fatalf("%d throughput series, want 2", len(thr))
			}
			for i, pts := range thr {
				var before, during, burst float64
				for _, p := range pts {
					switch {
					case p[0] > 3 && p[0] < 9:
						before = max(before, p[1])
					case p[0] > 11 && p[0] < 18.5:
						during = max(during, p[1])
					case p[0] >= 18.5 && p[0] < 20:
						burst = max(burst, p[1])
					}
				}
				r := float64(tc.rate)
				if before < 0.8*r || before > 1.3*r || during != 0 || burst < 5*r {
					t.Errorf("series %d: %.0f/s before the kill, %.0f/s without a leader, a burst of %.0f/s; want ~%d, 0, > %d",
						i, before, during, burst, tc.rate, 5*tc.rate)
				}
			}
			if !strings.Contains(page, "The axis stops at") {
				t.Errorf("the burst does not clip the throughput axis")
			}
			lat := points(islandOf(t, page, "chart-latency"))
			for i, pts := range lat {
				var peak float64
				for _, p := range pts {
					peak = max(peak, p[1])
				}
				if len(pts) < 300 || len(pts) > 1000 {
					t.Errorf("latency series %d: %d points, want about a thousand", i, len(pts))
				}
				want := float64(round(millis(r.Runs[0].Latency([]string{"acks1", "acksall"}[i]).Max), 3))
				if peak != want || peak < 9000 { // the message meant for 10.000 s waited for the leader at 19 s
					t.Errorf("latency series %d: highest point %.3f ms, want exactly the highest latency, %.3f", i, peak, want)
				}
			}
			if !regexp.MustCompile(`Each point is the max of the messages meant to be sent in one \d+ ms interval: up to \d+ messages`).MatchString(page) {
				t.Errorf("the latency chart does not say how it was downsampled")
			}
			for _, row := range []string{"<tr><td class=\"l\"><code>m-", "ok offset="} {
				if n := strings.Count(page, row); n > 0 && tc.rate > 1000 {
					t.Errorf("%d per-message rows (%q) on the page", n, row)
				}
			}
		})
	}
}

// TestLayouts renders the same evidence stored by schema 2 (a list of
// messages) and schema 3 (columns): the same charts and tables; and a
// schema 1 file: its time charts are drawn too.
func TestLayouts(t *testing.T) {
	site := t.TempDir()
	pages := map[string]string{}
	for _, fx := range []string{"v1", "v2", "acks"} {
		dir := mkRunDir(t, filepath.Join("testdata", fx), site, "producer-acks", "4.3.1", "2026112"+map[string]string{"v1": "7", "v2": "8", "acks": "9"}[fx]+"T213500Z")
		if err := Render(dir, Options{Generator: "kafkabook test"}); err != nil {
			t.Fatal(err)
		}
		pages[fx] = mustRead(t, filepath.Join(dir, IndexFile))
		for _, id := range []string{"chart-latency", "chart-latency-run-2", "chart-latency-run-3", "chart-latency-run-4"} {
			pts := points(islandOf(t, pages[fx], id))
			n := 0
			for _, s := range pts {
				n += len(s)
			}
			if len(pts) != 2 || n < 2*10 {
				t.Errorf("%s: %s has %d series of %d points in all, want 2 (one per experiment) with data", fx, id, len(pts), n)
			}
		}
		if strings.Contains(pages[fx], `id="chart-throughput`) {
			t.Errorf("%s: a throughput chart for 20 to 30 messages a run", fx)
		}
	}
	strip := func(p string) string { // the dates in the crumbs differ
		return regexp.MustCompile(`2026-11-2\d \d\d:\d\d:\d\d UTC|2026112\dT213500Z`).ReplaceAllString(p, "")
	}
	if strip(pages["v2"]) != strip(pages["acks"]) {
		a, b := strings.Split(strip(pages["v2"]), "\n"), strings.Split(strip(pages["acks"]), "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("schema 2 and schema 3 pages of the same evidence differ at line %d:\n%.300s\n%.300s", i+1, a[i], b[i])
			}
		}
		t.Fatalf("schema 2 and schema 3 pages differ in length")
	}
}

// TestLossRows: losses at consecutive offsets of a partition share a row;
// acks=0 losses (no offset) share one; a gap or another high watermark
// starts a new row.
func TestLossRows(t *testing.T) {
	rows := lossRows([]results.Loss{
		{ID: "m-009", Partition: 0, Offset: 8, HighWatermark: 20},
		{ID: "m-005", Partition: 0, Offset: 4, HighWatermark: 20, Found: "x-1"},
		{ID: "m-006", Partition: 0, Offset: 5, HighWatermark: 20, Found: "x-2"},
		{ID: "m-007", Partition: 0, Offset: 6, HighWatermark: 20},
		{ID: "m-001", Partition: 0, Offset: -1, HighWatermark: 20},
		{ID: "m-002", Partition: 0, Offset: -1, HighWatermark: 20},
		{ID: "m-010", Partition: 1, Offset: 9, HighWatermark: 30, Found: "sentinel-r1"},
		{ID: "m-011", Partition: 1, Offset: 10, HighWatermark: 30, Found: "sentinel-r1"},
	})
	want := []lossView{
		{First: "m-001", Last: "m-002", Count: 2, Offset: -1, LastOffset: -1, HW: 20},
		{First: "m-005", Last: "m-007", Count: 3, Offset: 4, LastOffset: 6, HW: 20, Found: "x-1", Mixed: true, FoundCount: 2},
		{First: "m-009", Count: 1, Offset: 8, LastOffset: 8, HW: 20},
		{First: "m-010", Last: "m-011", Count: 2, Partition: 1, Offset: 9, LastOffset: 10, HW: 30, Found: "sentinel-r1", FoundLast: "sentinel-r1", FoundCount: 2},
	}
	if fmt.Sprintf("%+v", rows) != fmt.Sprintf("%+v", want) {
		t.Errorf("rows\n%+v\nwant\n%+v", rows, want)
	}
}

// TestBrowserThroughput draws the failover page in Chromium: every chart
// inked, and each run's throughput chart's lines, as echarts holds them,
// drop to zero inside that run's own shaded window.
func TestBrowserThroughput(t *testing.T) {
	needChromium(t)
	dir := writeRun(t, failover(2, 500), failoverRunbook)
	if err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	pc := browseEval(t, filepath.Join(dir, IndexFile), `(() => {
  return ['chart-throughput', 'chart-throughput-run-2'].map(id => {
  const inst = echarts.getInstanceByDom(document.getElementById(id));
  const o = inst.getOption();
  return o.series.map(s => {
    let zero = 0, up = 0;
    for (const p of s.data) {
      if (p[1] === null) continue;
      if (p[0] > 11 && p[0] < 18.5 && p[1] === 0) zero++;
      if (p[0] > 3 && p[0] < 9 && p[1] > 400) up++;
    }
    const px = inst.convertToPixel({seriesIndex: 0}, [15, 0]);
    return s.name + ":" + zero + ":" + up + ":" + (s.markArea ? s.markArea.data.length : 0) + ":" + (px && px[1] > 0 ? "px" : "nopx");
  }).join("|");
  }).join("|");
})()`)
	assertClean(t, "failover", pc, 8) // outcomes, lost, throughput and latency of each run, distribution, ISR
	got := pc.Eval
	want := regexp.MustCompile(`^acks1:\d+:\d+:1:px\|acksall:\d+:\d+:0:px\|acks1:\d+:\d+:1:px\|acksall:\d+:\d+:0:px$`)
	if !want.MatchString(got) {
		t.Fatalf("throughput series in Chromium: %s", got)
	}
	for _, s := range strings.Split(got, "|") {
		if f := strings.Split(s, ":"); f[1] == "0" || f[2] == "0" {
			t.Errorf("series %s: no zero inside the window or no steady rate before it", s)
		}
	}
}
