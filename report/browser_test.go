package report

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// pageCharts is the number of charts on the acks fixture's page: outcomes,
// lost, a latency chart for each of its 4 runs (no throughput chart: 20
// to 30 messages a run), distribution, ISR.
const pageCharts = 8

// busyCharts is the number on busyTimeline's page: 4 runs with a
// throughput and a latency chart each, and the four others.
const busyCharts = 12

// consumerCharts is the number on the consumer fixture's page: outcomes,
// lost, a latency chart for each of its 2 runs, distribution, ISR, and
// the two groups' charts.
const consumerCharts = 8

// chromiumPath is the Debian package's browser.
const chromiumPath = "/usr/bin/chromium"

// needChromium skips the test when there is no Chromium, except in CI,
// where a missing browser must fail the build rather than pass it quietly.
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing; CI must install it (Debian: apt-get install -y chromium)", chromiumPath)
	}
	t.Skipf("%s is missing; install Debian's chromium to run the browser test", chromiumPath)
}

// pageCheck is what a headless Chromium saw on one page.
type pageCheck struct {
	Errors   []string // console errors, exceptions, error log entries
	Requests []string // every request the page attempted
	Blocked  []string // requests to anything but local files
	Charts   chartState
	Eval     string // what browseEval's expression returned
}

type chartState struct {
	Expected   int        `json:"expected"`
	Drawn      int        `json:"drawn"`
	Failed     []string   `json:"failed"`
	Canvases   []canvasSt `json:"canvases"`
	Pwned      string     `json:"pwned"`      // window.pwned, set only by a payload that ran
	TextFaults []string   `json:"textFaults"` // chart texts drawn over each other or cut off
}

type canvasSt struct {
	ID       string `json:"id"`
	Instance bool   `json:"instance"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Inked    int    `json:"inked"` // sampled pixels that are not blank
}

// checkScript inspects every chart div: an echarts instance, a canvas of
// non-zero size, and ink on it.
const checkScript = `(() => {
  const st = window.kafkabookCharts || {drawn: 0, failed: ["init script did not run"]};
  const out = {expected: document.querySelectorAll('script.chart-data').length, drawn: st.drawn, failed: st.failed, canvases: [], textFaults: [],
    pwned: String(window.pwned === undefined ? "" : window.pwned)};
  for (const el of document.querySelectorAll('div.chart')) {
    const c = el.querySelector('canvas');
    const r = {id: el.id, instance: typeof echarts !== 'undefined' && !!echarts.getInstanceByDom(el), width: 0, height: 0, inked: 0};
    if (c) {
      r.width = c.width; r.height = c.height;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 0; i < d.length; i += 4 * 97) {
        if (d[i+3] > 0 && !(d[i] > 250 && d[i+1] > 250 && d[i+2] > 250)) r.inked++;
      }
    }
    out.canvases.push(r);
    const inst = typeof echarts !== 'undefined' && echarts.getInstanceByDom(el);
    if (!inst) { continue; }
    const texts = [];
    for (const e of inst.getZr().storage.getDisplayList(true)) {
      if ((e.type !== 'text' && e.type !== 'tspan') || e.ignore || e.invisible || !e.style || !e.style.text) { continue; }
      if (e.__clipPaths && e.__clipPaths.length) { continue; } // scrolled out of a legend
      const b = e.getBoundingRect().clone();
      if (e.transform) { b.applyTransform(e.transform); }
      texts.push({t: String(e.style.text), b: b});
      if (b.x < -1 || b.y < -1 || b.x + b.width > inst.getWidth() + 1 || b.y + b.height > inst.getHeight() + 1) {
        out.textFaults.push(el.id + ": " + JSON.stringify(String(e.style.text)) + " cut off at the chart's edge");
      }
    }
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const a = texts[i].b, c = texts[j].b;
        const w = Math.min(a.x + a.width, c.x + c.width) - Math.max(a.x, c.x);
        const h = Math.min(a.y + a.height, c.y + c.height) - Math.max(a.y, c.y);
        if (w > 1 && h > 1) { out.textFaults.push(el.id + ": " + JSON.stringify(texts[i].t) + " over " + JSON.stringify(texts[j].t)); }
      }
    }
  }
  return out;
})()`

// browse opens a local file in headless Chromium with every request that
// is not a local file failed, and reports what happened.
func browse(t *testing.T, file string) pageCheck {
	t.Helper()
	return browseEval(t, file, "")
}

// browseEval is browse, and evaluates expr (a JavaScript expression giving
// a string) once the charts are drawn.
func browseEval(t *testing.T, file, expr string) pageCheck {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: abs}).String()

	actx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("no-first-run", true),
		chromedp.WindowSize(1280, 2000),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Env("TMPDIR="+t.TempDir()), // Chromium's own scratch files go away with the test
	)
	defer cancel()

	var mu sync.Mutex
	var pc pageCheck
	listener := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				pc.Errors = append(pc.Errors, "console: "+strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			msg := ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
			pc.Errors = append(pc.Errors, "exception: "+msg)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				pc.Errors = append(pc.Errors, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			pc.Requests = append(pc.Requests, ev.Request.URL)
		}
	}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(listener))
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // starts the browser; no timeout on this one
		t.Fatalf("start %s: %v", chromiumPath, err)
	}
	tctx, tcancel := context.WithTimeout(ctx, 60*time.Second)
	defer tcancel()

	// Every request pauses here: local files go on, anything else fails.
	paused := chromedp.Events(tctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			reqURL := ev.Request.URL
			if strings.HasPrefix(reqURL, "file://") || strings.HasPrefix(reqURL, "data:") {
				_, _ = chromedp.Call(tctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				continue
			}
			mu.Lock()
			pc.Blocked = append(pc.Blocked, reqURL)
			mu.Unlock()
			_, _ = chromedp.Call(tctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		}
	}()
	for _, step := range []func() error{
		func() error { _, err := chromedp.Call(tctx, network.Enable, network.EnableParams{}); return err },
		func() error { _, err := chromedp.Call(tctx, cdplog.Enable, cdp.Empty{}); return err },
		func() error { _, err := chromedp.Call(tctx, runtime.Enable, cdp.Empty{}); return err },
		func() error {
			_, err := chromedp.Call(tctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}})
			return err
		},
	} {
		if err := step(); err != nil {
			t.Fatalf("devtools: %v", err)
		}
	}
	err = chromedp.Do(tctx,
		chromedp.Navigate(u),
		chromedp.WaitReady("body"),
	)
	if err == nil {
		_, err = chromedp.Run(tctx, chromedp.Poll[bool](`window.kafkabookCharts !== undefined`, chromedp.WithPollingTimeout(20*time.Second)))
	}
	if err == nil {
		err = chromedp.Do(tctx, chromedp.Sleep(300*time.Millisecond)) // let echarts paint
	}
	var state chartState
	if err == nil {
		state, err = chromedp.Run(tctx, chromedp.Evaluate[chartState](checkScript))
	}
	var eval string
	if err == nil && expr != "" {
		eval, err = chromedp.Run(tctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	}
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		t.Fatalf("chromium on %s: %v (errors so far: %v)", file, err, pc.Errors)
	}
	pc.Charts = state
	pc.Eval = eval
	return pc
}

// assertClean fails t unless the page drew every chart, logged no error and
// asked for nothing but local files.
func assertClean(t *testing.T, name string, pc pageCheck, wantCharts int) {
	t.Helper()
	for _, e := range pc.Errors {
		t.Errorf("%s: %s", name, e)
	}
	for _, r := range pc.Blocked {
		t.Errorf("%s: attempted a request off this machine: %s", name, r)
	}
	for _, r := range pc.Requests {
		if !strings.HasPrefix(r, "file://") && !strings.HasPrefix(r, "data:") {
			t.Errorf("%s: request to %s", name, r)
		}
	}
	st := pc.Charts
	if st.Expected != wantCharts || st.Drawn != wantCharts || len(st.Failed) > 0 {
		t.Errorf("%s: charts expected=%d drawn=%d failed=%v, want %d drawn", name, st.Expected, st.Drawn, st.Failed, wantCharts)
	}
	if len(st.Canvases) != wantCharts {
		t.Errorf("%s: %d chart divs, want %d", name, len(st.Canvases), wantCharts)
	}
	for _, c := range st.Canvases {
		if !c.Instance || c.Width == 0 || c.Height == 0 || c.Inked == 0 {
			t.Errorf("%s: chart %s not drawn: %+v", name, c.ID, c)
		}
	}
	for _, f := range st.TextFaults {
		t.Errorf("%s: %s", name, f)
	}
}

func TestBrowser(t *testing.T) {
	needChromium(t)
	site, dirs := fixtureSite(t)
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	single := filepath.Join(t.TempDir(), "single")
	if err := os.MkdirAll(single, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFiles(t, dirs[1], single)
	if err := Render(single, Options{SingleFile: true}); err != nil {
		t.Fatal(err)
	}
	if fileExists(filepath.Join(single, "..", "..", "..", assetsDir)) {
		t.Errorf("single-file render wrote shared assets")
	}

	for _, tc := range []struct {
		name   string
		file   string
		charts int
	}{
		{"report", filepath.Join(dirs[1], IndexFile), pageCharts},
		{"report via latest", filepath.Join(site, "producer-acks", "kafka-4.3.1", LatestLink, IndexFile), pageCharts},
		{"single file", filepath.Join(single, IndexFile), pageCharts},
		{"site index", filepath.Join(site, IndexFile), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc := browse(t, tc.file)
			assertClean(t, tc.name, pc, tc.charts)
			if tc.name == "single file" {
				for _, r := range pc.Requests[1:] { // the page itself is the only request
					t.Errorf("single-file page requested %s", r)
				}
			}
			if testing.Verbose() {
				t.Logf("%s: %d requests, charts %+v", tc.name, len(pc.Requests), pc.Charts.Canvases)
			}
		})
	}
}

// TestBrowserBusyTimeline draws a timeline crowded with fault windows and
// reads, runs differing in their timing: no label may cover another or be
// cut off (assertClean asks echarts for every text it drew).
func TestBrowserBusyTimeline(t *testing.T) {
	needChromium(t)
	dir := writeRun(t, busyTimeline(), syntheticRunbook)
	if err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	pc := browse(t, filepath.Join(dir, IndexFile))
	assertClean(t, "busy timeline", pc, busyCharts)
}

// TestBrowserBlocksNetwork proves the harness notices a page that reaches
// out or logs an error: without it, a clean result would prove nothing.
func TestBrowserBlocksNetwork(t *testing.T) {
	needChromium(t)
	dir := t.TempDir()
	page := `<!DOCTYPE html><html><body><div class="chart" id="c"></div>
<img src="http://example.invalid/x.png"><script>console.error("planted"); window.pwned = 7; window.kafkabookCharts = {drawn: 0, failed: []};</script></body></html>`
	p := filepath.Join(dir, "index.html")
	if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	pc := browse(t, p)
	if len(pc.Blocked) == 0 {
		t.Fatalf("a request to example.invalid went unnoticed: %+v", pc)
	}
	if pc.Blocked[0] != "http://example.invalid/x.png" {
		t.Errorf("blocked %v", pc.Blocked)
	}
	if pc.Charts.Pwned != "7" {
		t.Errorf("a script that ran went unnoticed: pwned=%q", pc.Charts.Pwned)
	}
	if !strings.Contains(strings.Join(pc.Errors, "\n"), "planted") {
		t.Errorf("a console error went unnoticed: %v", pc.Errors)
	}
}

// TestBrowserConsumers draws the consumer fixture's page: the two group
// charts as well as the others, clean, and echarts holds each group's
// three lines per run with the crash and the second member marked.
func TestBrowserConsumers(t *testing.T) {
	needChromium(t)
	dir := consumerDir(t, nil)
	if err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	pc := browseEval(t, filepath.Join(dir, IndexFile), `(() => {
  return ['chart-group-1', 'chart-group-2'].map(id => {
    const inst = echarts.getInstanceByDom(document.getElementById(id));
    const o = inst.getOption();
    const shown = Object.entries(o.legend[0].selected).filter(e => e[1]).length;
    const marks = (o.series[0].markLine.data || []).map(m => m.label.formatter).join("+");
    const px = inst.convertToPixel({seriesIndex: 0}, [5, 5]);
    return id + ":" + o.series.length + ":" + shown + ":" + o.series.map(s => s.data.length > 0 ? 1 : 0).join("") + ":" + marks + ":" + (px && px[1] > 0 ? "px" : "nopx");
  }).join("|");
})()`)
	assertClean(t, "consumers", pc, consumerCharts)
	want := "chart-group-1:6:3:111111:member 1 crashed+member 2 started:px|chart-group-2:6:3:111111:member 1 crashed+member 2 started:px"
	if pc.Eval != want {
		t.Errorf("group charts in Chromium:\n got %s\nwant %s", pc.Eval, want)
	}
}

// TestBrowserConsumersHostile opens a consumer page whose every outside
// string carries the payload: nothing runs, every chart draws.
func TestBrowserConsumersHostile(t *testing.T) {
	needChromium(t)
	dir := consumerDir(t, hostileConsumers)
	if err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	// Point at member 1's crash: its tooltip names the record and the
	// reason, both the payload, as text.
	pc := browseEval(t, filepath.Join(dir, IndexFile), `(async () => {
  const el = document.getElementById('chart-group-1');
  el.scrollIntoView();
  const inst = echarts.getInstanceByDom(el);
  const px = inst.convertToPixel({seriesIndex: 0}, [5.7, 5]);
  for (const dx of [0, 1]) {
    inst.getZr().handler.dispatch('mousemove', {zrX: px[0] + dx, zrY: px[1], offsetX: px[0] + dx, offsetY: px[1]});
    await new Promise(res => setTimeout(res, 200));
  }
  const tips = [...el.querySelectorAll('*')].filter(d => d.children.length === 0 && d.textContent.includes('crashed while handling'));
  return tips.map(d => d.textContent).join("|") + "|pwned=" + String(window.pwned);
})()`)
	assertClean(t, "hostile consumers", pc, consumerCharts)
	if pc.Charts.Pwned != "" {
		t.Errorf("the payload ran: window.pwned = %s", pc.Charts.Pwned)
	}
	if !strings.Contains(pc.Eval, "run 1: member 1 crashed while handling "+payload+" (partition 0, offset 3): "+payload) || !strings.HasSuffix(pc.Eval, "|pwned=undefined") {
		t.Errorf("the crash's tooltip: %q", pc.Eval)
	}
}

// TestBrowserRefusesInlineScript plants an inline script in a rendered
// page, as evidence that got past escaping would: Chromium refuses it
// under the page's CSP and logs the refusal, while the page's own scripts,
// allowed by their hashes, still draw every chart (echarts inline too, in
// a single-file page).
func TestBrowserRefusesInlineScript(t *testing.T) {
	needChromium(t)
	shared := acksDir(t)
	if err := Render(shared, Options{}); err != nil {
		t.Fatal(err)
	}
	single := acksDir(t)
	if err := Render(single, Options{SingleFile: true}); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{"shared": shared, "single": single} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, IndexFile)
			page := mustRead(t, p)
			end := strings.LastIndex(page, "</body>")
			if end < 0 {
				t.Fatal("no </body> in the page")
			}
			planted := page[:end] + "<script>window.pwned = 9;</script>\n" + page[end:]
			if err := os.WriteFile(p, []byte(planted), 0o644); err != nil {
				t.Fatal(err)
			}
			pc := browse(t, p)
			if pc.Charts.Pwned != "" {
				t.Errorf("the planted script ran: window.pwned = %s", pc.Charts.Pwned)
			}
			refused := false
			for _, e := range pc.Errors {
				if strings.Contains(e, "Content Security Policy") && strings.Contains(e, "inline script") {
					refused = true
				} else {
					t.Errorf("%s: %s", name, e)
				}
			}
			if !refused {
				t.Errorf("no refusal of the inline script was logged: %v", pc.Errors)
			}
			st := pc.Charts
			if st.Drawn != pageCharts || len(st.Failed) > 0 {
				t.Errorf("charts drawn=%d failed=%v, want %d", st.Drawn, st.Failed, pageCharts)
			}
		})
	}
}
