package report

import (
	"fmt"
	"html/template"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// reportPage is everything report.html.tmpl shows. Every string in it comes
// from outside and is escaped by html/template; only Prose (goldmark output
// without raw HTML), Style and Script are trusted.
type reportPage struct {
	Title     string
	Runbook   results.Runbook
	Verdict   verdict
	Complete  bool
	Error     string
	Kafka     string
	Backend   string
	Date      string
	Facts     []fact
	Params    []fact
	Broker    []fact
	Summaries []summary
	Charts    []chart
	Cells     []cell
	NoRunbook string
	Logs      []runLogs
	Head      head
}

// head is what every page's <head> and footer need.
type head struct {
	Style        template.CSS
	Script       template.JS
	EchartsSrc   string      // relative URL of the shared echarts, or
	EchartsJS    template.JS // echarts inlined (single file)
	EchartsVer   string
	EchartsNote  string // NOTICE, shown in single-file pages
	SiteIndex    string // relative URL of the site index, if any
	Generator    string
	ChartsNeeded bool
}

type fact struct{ Key, Value string }

type verdict struct {
	Held, Runs int
	Class      string // "held", "partial", "failed"
}

func (v verdict) Text() string {
	return fmt.Sprintf("expectations held in %d of %d runs", v.Held, v.Runs)
}

func newVerdict(r *results.Results) verdict {
	held, runs := r.Verdict()
	v := verdict{Held: held, Runs: runs, Class: "partial"}
	switch {
	case runs > 0 && held == runs && r.Complete:
		v.Class = "held"
	case held == 0:
		v.Class = "failed"
	}
	return v
}

// summary is the table of one experiment (label): a row per run and a total.
type summary struct {
	Label string
	Rows  []summaryRow
	Total summaryRow
}

type summaryRow struct {
	Run                   string
	Read                  bool // the run read the topic
	Acked, Lost, Dups     int
	Unacked, NeverAcked   int
	P50, P99, Max         string
	Held                  bool
	Failed                []string // expressions that failed in this run
	Error                 string
	LostIDs               string // the first lost ids, for a title attribute
	ProducedAck, Produced int
}

func summaries(r *results.Results, labels []string) []summary {
	var out []summary
	for _, l := range labels {
		s := summary{Label: l}
		tot := summaryRow{Run: "all", Read: true, Held: true}
		for _, run := range r.Runs {
			p := run.Latency(l)
			row := summaryRow{Run: strconv.Itoa(run.Number), Held: run.Held(), Error: run.Error,
				P50: dur(p.P50, p.Count), P99: dur(p.P99, p.Count), Max: dur(p.Max, p.Count)}
			for _, e := range run.FailedExpectations() {
				row.Failed = append(row.Failed, e.Expr+" (was "+e.Actual+")")
			}
			if t, ok := run.Tally(l); ok {
				row.Read = true
				row.Acked, row.Lost, row.Dups = t.Acked, len(t.Lost), len(t.Duplicates)
				row.Unacked, row.NeverAcked = len(t.UnknownPresent)+len(t.FailedPresent), len(t.Unseen)
				row.LostIDs = idList(t.LostIDs(), 20)
				tot.Acked += t.Acked
				tot.Lost += len(t.Lost)
				tot.Dups += len(t.Duplicates)
				tot.Unacked += len(t.UnknownPresent) + len(t.FailedPresent)
				tot.NeverAcked += len(t.Unseen)
			}
			tot.Held = tot.Held && row.Held
			s.Rows = append(s.Rows, row)
		}
		p := r.LatencyAll(l)
		tot.P50, tot.P99, tot.Max = dur(p.P50, p.Count), dur(p.P99, p.Count), dur(p.Max, p.Count)
		s.Total = tot
		out = append(out, s)
	}
	return out
}

// idList shows at most n ids: "m-011 m-012 … (10 in all)".
func idList(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, " ")
	}
	return strings.Join(ids[:n], " ") + fmt.Sprintf(" … (%d in all)", len(ids))
}

// dur formats a latency for people: 0.42 ms, 12.3 ms, 29.3 s.
func dur(d time.Duration, count int) string {
	if count == 0 {
		return "–"
	}
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case d < 10*time.Millisecond:
		return strconv.FormatFloat(ms, 'f', 2, 64) + " ms"
	case d < time.Second:
		return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
	case d < 100*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
	default:
		return d.Round(time.Second).String()
	}
}

// sortedFacts turns a map into rows sorted by key.
func sortedFacts(m map[string]string) []fact {
	out := make([]fact, 0, len(m))
	for k, v := range m {
		out = append(out, fact{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// provenanceFacts lists how the evidence was produced.
func provenanceFacts(r *results.Results) []fact {
	p := r.Provenance
	f := []fact{
		{"kafkabook", strings.TrimSpace(p.Tool + " " + p.Commit)},
		{"Kafka", p.Kafka},
		{"backend", fmt.Sprintf("%s, %d nodes", p.Backend, p.Nodes)},
		{"franz-go", p.FranzGo},
		{"Go", p.GoVersion},
	}
	if p.Java != "" {
		f = append(f, fact{"Java", p.Java})
	}
	f = append(f,
		fact{"runbook", r.Runbook.Path},
		fact{"runbook sha256", r.Runbook.SHA256},
		fact{"host", p.Host},
		fact{"started", stamp(p.Start)},
		fact{"ended", stamp(p.End)},
		fact{"runs", fmt.Sprintf("%d of %d asked", len(r.Runs), p.Repeat)},
	)
	if p.ClusterReused {
		f = append(f, fact{"cluster", "reused from before this invocation"})
	}
	return f
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// runLogs holds the notable broker log lines of one run.
type runLogs struct {
	Run     int
	Open    bool
	Lines   []logView
	Omitted int
}

type logView struct{ At, Node, Text string }

// maxLogLines is how many log lines of one run a page shows.
const maxLogLines = 200

func logsOf(r *results.Results) []runLogs {
	var out []runLogs
	for i, run := range r.Runs {
		if len(run.Logs) == 0 {
			continue
		}
		rl := runLogs{Run: run.Number, Open: i == 0}
		for j, l := range run.Logs {
			if j == maxLogLines {
				rl.Omitted = len(run.Logs) - maxLogLines
				break
			}
			rl.Lines = append(rl.Lines, logView{At: fmt.Sprintf("%.3f s", since(run, l.At).Seconds()), Node: l.Node, Text: l.Text})
		}
		out = append(out, rl)
	}
	return out
}
