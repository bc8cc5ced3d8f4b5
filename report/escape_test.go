package report

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/echarts"
	"github.com/kafkabook/kafkabook/results"
)

// payload tries to leave every context it lands in and run code.
const payload = `</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2"><!--`

// hostileRun writes a run directory whose every outside string carries the
// payload: title, prose (raw HTML, a javascript: link), step text and
// output, log lines, parameters, broker overrides, labels, errors.
func hostileRun(t *testing.T) string {
	t.Helper()
	site := t.TempDir()
	dir := mkRunDir(t, "testdata/acks", site, "evil", "4.3.1", "20261129T213500Z")
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.Title = "Title " + payload + " gpj.\u202eexe"
	r.Provenance.Params = map[string]string{"count" + payload: "10" + payload}
	r.Provenance.Broker = map[string]string{"x": payload}
	r.Provenance.Host = payload
	r.Provenance.Kafka = "4.3.1" + payload
	r.Runbook.Path = payload
	r.Complete, r.Error = false, "stopped: "+payload
	run := &r.Runs[0]
	run.Error = payload
	run.Topics[0].Label = "acks1" + payload
	run.Tallies[0].Label = "acks1" + payload
	run.Tallies[0].Pos = payload
	run.Tallies[0].Final, run.Final = false, nil // judged by the snapshot, named by its position
	for i := range r.Runs[1:] {
		f := &r.Runs[1+i].Final[0]
		f.Label = "acks1" + payload
		f.Lost[0].Found = payload // a record someone else wrote to the topic
		f.Unseen = append(f.Unseen, payload)
		f.UnknownPresent = append(f.UnknownPresent, payload)
		f.FailedPresent = append(f.FailedPresent, payload)
		f.Duplicates = append(f.Duplicates, results.Duplicate{ID: payload, Offsets: []int64{1, 2}})
		f.Inconsistent = append(f.Inconsistent, results.Inconsistency{Partition: 0, Offset: 3, IDs: []string{payload, "m-004"}})
	}
	for i := range r.Runs[1:] {
		r.Runs[1+i].Topics[0].Label = "acks1" + payload
	}
	run.Steps[0].Output = append(run.Steps[0].Output, payload)
	run.Steps[0].Text = "topic create " + payload
	run.Steps[0].Error = payload
	run.Steps[len(run.Steps)-1].Output = []string{"sh said " + payload} // the sh block
	run.Logs[0].Text = payload
	run.Logs[0].Node = payload
	// Lines the why section quotes: a truncation its explanation rests
	// on, and a relevant-looking line no pattern knows.
	run2 := &r.Runs[1]
	for i, l := range run2.Logs {
		if strings.Contains(l.Text, "Truncating to offset 10") {
			run2.Logs[i].Text = strings.Replace(l.Text, "Truncating to offset 10", "Truncating to offset 10 "+payload, 1)
		}
	}
	at := run2.Logs[len(run2.Logs)-1].At
	run2.Logs = append(run2.Logs, results.LogLine{At: at, Node: "k2", Text: "[" + at.UTC().Format("2006-01-02T15:04:05.000Z") + "] INFO new leader epoch " + payload})
	run.Expectations[0].Actual = payload
	run.Expectations[0].Held = false
	run.Faults[0].Nodes = []string{payload}
	prose := "\n\nProse " + payload + "\n\n<script>window.pwned=3</script>\n\n[click](javascript:window.pwned=4)\n\n<div onclick=\"window.pwned=5\">raw block</div>\n"
	src, err := os.ReadFile(filepath.Join(dir, "runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.Replace(string(src), "\n## Experiment 1", prose+"\n## Experiment 1", 1))
	src = append(src, []byte("\n```sh\necho '"+payload+"'\n```\n")...)
	if err := os.WriteFile(filepath.Join(dir, "runbook.md"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	r.Runbook.SHA256 = sha256Hex(string(src)) // the hostile runbook is the one that ran
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ourScripts are the only script elements a page may hold.
var ourScripts = regexp.MustCompile(`^<script(>| src="[./a-z]*echarts\.min\.js">| type="application/json" class="chart-data" data-for="chart-[a-z0-9-]+">)`)

func TestEscaping(t *testing.T) {
	dir := hostileRun(t)
	for _, single := range []bool{false, true} {
		if err := Render(dir, Options{SingleFile: single}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, IndexFile))
		if err != nil {
			t.Fatal(err)
		}
		// goldmark marks what it dropped with a harmless comment.
		page := strings.ReplaceAll(string(b), "<!-- raw HTML omitted -->", "")
		for _, bad := range []string{"<script>window", "<img", "<div onclick", `onerror="`, `onclick="`, `href="javascript`, "<!--"} {
			if i := strings.Index(page, bad); i >= 0 && !inEcharts(page, i) {
				t.Errorf("single=%v: page holds %q unescaped near %q", single, bad, around(page, i))
			}
		}
		scripts := 0
		for i := strings.Index(page, "<script"); i >= 0; {
			if !inEcharts(page, i) {
				scripts++
				if !ourScripts.MatchString(page[i:]) {
					t.Errorf("single=%v: foreign script element near %q", single, around(page, i))
				}
			}
			next := strings.Index(page[i+1:], "<script")
			if next < 0 {
				break
			}
			i += 1 + next
		}
		if want := pageCharts + 2; scripts != want { // a data island a chart, echarts, init
			t.Errorf("single=%v: %d script elements, want %d", single, scripts, want)
		}
		if !strings.Contains(page, "&lt;/script&gt;&lt;script&gt;window.pwned=1") {
			t.Errorf("single=%v: payload not shown escaped", single)
		}
		if strings.ContainsRune(page, '\u202e') || !strings.Contains(page, "gpj.[U+202E]exe") {
			t.Errorf("single=%v: the title's bidi override is not shown as its code point", single)
		}
		why := section(t, page, `<h2 id="why">`, `<h2 id="charts">`)
		if n := strings.Count(why, "&lt;/script&gt;&lt;script&gt;window.pwned=1"); n < 2 {
			t.Errorf("single=%v: the why section shows the hostile lines escaped %d times, want a statement's line and an unrecognised one", single, n)
		}
	}
}

// inEcharts tells whether offset i falls inside the inlined echarts source.
func inEcharts(page string, i int) bool {
	e, err := echarts.Load(context.Background(), nil)
	if err != nil {
		return false
	}
	start := strings.Index(page, string(e.JS[:200]))
	return start >= 0 && i >= start && i < start+len(e.JS)
}

func around(s string, i int) string {
	lo, hi := max(0, i-60), min(len(s), i+60)
	return s[lo:hi]
}

// TestEscapingBrowser opens the hostile page: nothing of the payload runs,
// and the charts still draw.
func TestEscapingBrowser(t *testing.T) {
	needChromium(t)
	dir := hostileRun(t)
	if err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	pc := browse(t, filepath.Join(dir, IndexFile))
	assertClean(t, "hostile", pc, pageCharts)
	if pc.Charts.Pwned != "" {
		t.Errorf("the payload ran: window.pwned = %s", pc.Charts.Pwned)
	}
	for _, r := range pc.Requests {
		if strings.HasSuffix(r, "/x") {
			t.Errorf("the payload's <img> loaded: %s", r)
		}
	}
}
