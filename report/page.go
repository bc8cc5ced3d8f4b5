package report

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/explain"
	"github.com/kafkabook/kafkabook/results"
)

// reportPage is everything report.html.tmpl shows. Every string in it comes
// from outside and is escaped by html/template; only Prose (runbook.Block.HTML
// without raw HTML), Style and Script are trusted.
type reportPage struct {
	Title     string
	Runbook   results.Runbook
	Verdict   verdict
	Complete  bool
	Error     string
	Kafka     string
	Client    string // the run's client when not franz-go: java, librdkafka@2.15.1
	Backend   string
	Date      string
	Facts     []fact
	Params    []fact
	Broker    []fact
	Summaries []summary
	NoFinal   string // why no run was judged by a final read
	Consumers []groupSection
	Why       []whyRun // each loss explained, run by run
	WhyFull   int      // how many runs Why explains step by step
	Faults    []faultRun
	exps      []explain.Explanation
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

// summary is the table of one experiment (label): a row per run and a
// total, then what became of its messages, run by run.
type summary struct {
	Label  string
	Rows   []summaryRow
	Total  summaryRow
	Proofs []proof // runs with lost, unseen or otherwise notable messages
	// Bounds say what the final reads bound: how often such a run loses
	// any acknowledged message, how often such a message is lost.
	Bounds []string
}

// summaryRow counts one run's messages of one experiment by the run's
// word on them: its final read, or its last read step when it made no
// final read (a snapshot).
type summaryRow struct {
	Run            string
	Read           bool   // the run read the topic
	Final          bool   // judged by the final read on the healed cluster
	Judged         string // "final read", or the last read step
	JudgedTitle    string // the read step's position
	Acked, Present int
	Lost, Unseen   int
	Dups           int
	Failed         int
	Unknown        int
	UnknownPresent int
	FailedPresent  int
	Inconsistent   int
	P50, P99, Max  string
	Held           bool
	FailedExprs    []string // expressions that failed in this run
	Error          string
	LostIDs        string // the first lost ids, for a title attribute
}

func summaries(r *results.Results, labels []string, steps stepIndex) []summary {
	var out []summary
	for _, l := range labels {
		s := summary{Label: l}
		tot := summaryRow{Run: "all", Read: true, Final: true, Held: true}
		for i, run := range r.Runs {
			p := run.Latency(l)
			row := summaryRow{Run: strconv.Itoa(run.Number), Held: run.Held(), Error: run.Error,
				P50: dur(p.P50, p.Count), P99: dur(p.P99, p.Count), Max: dur(p.Max, p.Count)}
			for _, e := range run.FailedExpectations() {
				row.FailedExprs = append(row.FailedExprs, e.Expr+" (was "+e.Actual+")")
			}
			if t, ok := run.Tally(l); ok {
				row.Read, row.Final = true, t.Final
				row.Judged, row.JudgedTitle = "final read", ""
				if !t.Final {
					row.Judged, row.JudgedTitle = steps.name(run, t)+", a snapshot", readPos(run, t)
				}
				o := t.Outcomes()
				row.Acked, row.Present, row.Lost, row.Unseen, row.Dups = t.Acked, o.Present, o.Lost, o.Unseen, len(messageDups(t))
				row.Failed, row.Unknown = t.Failed, t.Unknown
				row.UnknownPresent, row.FailedPresent, row.Inconsistent = len(t.UnknownPresent), len(t.FailedPresent), len(t.Inconsistent)
				row.LostIDs = idList(t.LostIDs(), 20)
				tot.Acked += row.Acked
				tot.Present += row.Present
				tot.Lost += row.Lost
				tot.Unseen += row.Unseen
				tot.Dups += row.Dups
				tot.Failed += row.Failed
				tot.Unknown += row.Unknown
				tot.UnknownPresent += row.UnknownPresent
				tot.FailedPresent += row.FailedPresent
				tot.Inconsistent += row.Inconsistent
				tot.Final = tot.Final && t.Final
				if pr, ok := newProof(run, t, steps, i == 0); ok {
					s.Proofs = append(s.Proofs, pr)
				}
			}
			tot.Held = tot.Held && row.Held
			s.Rows = append(s.Rows, row)
		}
		p := r.LatencyAll(l)
		tot.P50, tot.P99, tot.Max = dur(p.P50, p.Count), dur(p.P99, p.Count), dur(p.Max, p.Count)
		s.Total = tot
		if runs, msgs := r.LossBounds(l); runs.N > 0 {
			s.Bounds = []string{runs.Words("runs", "lost any"), msgs.Words("acknowledged messages", "lost")}
		}
		if left := leftOut(r); left != "" {
			s.Bounds = append(s.Bounds, left)
		}
		out = append(out, s)
	}
	return out
}

// messageDups are the duplicates of a tally that are messages: sentinel
// records share one value per run, so they may be found at several offsets.
func messageDups(t results.Tally) []results.Duplicate {
	var out []results.Duplicate
	for _, d := range t.Duplicates {
		if !results.IsSentinel(d.ID) {
			out = append(out, d)
		}
	}
	return out
}

// proof lists, for one run and experiment, every lost message with the
// evidence that it is gone, and the other messages worth a look.
type proof struct {
	Run     int
	Open    bool // run 1 is shown open, the others folded
	Final   bool
	Judged  string
	Lost    []lossView
	More    int // lost messages beyond those listed
	Unseen  string
	Dups    []string // "m-004 at offsets 3, 9"
	Unknown string   // unknown but present
	FailedP string   // failed but present
	Incons  []string // "partition 0 offset 12: m-013, then m-020"
	Summary string   // "10 lost, 2 unseen"
}

// lossView is the proof of a run of losses: messages acknowledged at
// consecutive offsets of one partition (or, sent with acks=0, at none),
// that the read reached past (HW) and did not find, with what it found at
// those offsets. One row covers a thousand messages lost in one truncation
// as well as one.
type lossView struct {
	First, Last string // ids at the first and last offset; Last empty for one message
	Count       int
	Partition   int32
	Offset      int64 // the first; -1: sent with acks=0, no offset
	LastOffset  int64
	HW          int64
	Found       string // the same record at every offset, or the first found
	Mixed       bool   // the records found differ from offset to offset
	FoundLast   string // then the last found
	FoundCount  int    // and how many offsets held a record
}

// maxProofs is how many rows of losses a run shows; every loss is in
// results.json.
const maxProofs = 100

// maxListed is how many duplicates or rewritten offsets a run lists.
const maxListed = 20

// lossRows groups losses into runs of consecutive offsets of a partition
// with the same high watermark, in partition and offset order.
func lossRows(lost []results.Loss) []lossView {
	ls := append([]results.Loss(nil), lost...)
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].Partition != ls[j].Partition {
			return ls[i].Partition < ls[j].Partition
		}
		return ls[i].Offset < ls[j].Offset
	})
	var out []lossView
	for _, l := range ls {
		if n := len(out); n > 0 {
			v := &out[n-1]
			next := v.LastOffset+1 == l.Offset || (v.Offset < 0 && l.Offset < 0)
			if v.Partition == l.Partition && v.HW == l.HighWatermark && next {
				v.Count++
				v.Last, v.LastOffset = l.ID, l.Offset
				v.Mixed = v.Mixed || l.Found != v.Found
				v.FoundLast = l.Found
				if l.Found != "" {
					v.FoundCount++
				}
				continue
			}
		}
		v := lossView{First: l.ID, Count: 1, Partition: l.Partition, Offset: l.Offset, LastOffset: l.Offset, HW: l.HighWatermark, Found: l.Found}
		if l.Found != "" {
			v.FoundCount = 1
		}
		out = append(out, v)
	}
	return out
}

func newProof(run results.Run, t results.Tally, steps stepIndex, first bool) (proof, bool) {
	p := proof{Run: run.Number, Open: first, Final: t.Final, Judged: "the final read"}
	if !t.Final {
		p.Judged = "the last read (" + steps.name(run, t) + ", a snapshot)"
	}
	rows := lossRows(t.Lost)
	for i, v := range rows {
		if i == maxProofs {
			for _, w := range rows[i:] {
				p.More += w.Count
			}
			break
		}
		p.Lost = append(p.Lost, v)
	}
	p.Unseen = idList(t.Unseen, 40)
	dups := messageDups(t)
	for i, d := range dups {
		if i == maxListed {
			p.Dups = append(p.Dups, fmt.Sprintf("… (%d in all)", len(dups)))
			break
		}
		offs := make([]string, len(d.Offsets))
		for i, o := range d.Offsets {
			offs[i] = strconv.FormatInt(o, 10)
		}
		p.Dups = append(p.Dups, d.ID+" at offsets "+strings.Join(offs, ", "))
	}
	p.Unknown = idList(t.UnknownPresent, 40)
	p.FailedP = idList(t.FailedPresent, 40)
	for i, in := range t.Inconsistent {
		if i == maxListed {
			p.Incons = append(p.Incons, fmt.Sprintf("… (%d in all)", len(t.Inconsistent)))
			break
		}
		p.Incons = append(p.Incons, fmt.Sprintf("partition %d offset %d: %s", in.Partition, in.Offset, strings.Join(in.IDs, ", then ")))
	}
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{len(t.Lost), "lost"}, {len(t.Unseen), "unseen"}, {len(dups), "duplicated"}, {len(t.UnknownPresent), "unknown but present"},
		{len(t.FailedPresent), "failed but present"}, {len(t.Inconsistent), "inconsistent offsets"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	p.Summary = strings.Join(parts, ", ")
	return p, len(parts) > 0
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
		{"transaction protocol", txnProtocol(p)},
	}
	if len(p.Features) > 0 {
		f = append(f, fact{"cluster features", featuresFact(p.Features)})
	}
	if p.Quorum != "" {
		f = append(f, fact{"controller quorum", quorumFact(p.Quorum)})
	}
	f = append(f, fact{"franz-go", p.FranzGo}, fact{"Go", p.GoVersion})
	if p.Java != "" {
		f = append(f, fact{"Java", p.Java})
	}
	if p.Client != "" {
		f = append(f, fact{"client", p.Client})
	}
	for _, c := range p.Clients {
		f = append(f, fact{"client " + c.Client, clientFact(c)})
	}
	f = append(f,
		fact{"runbook", r.Runbook.Path},
		fact{"runbook sha256", r.Runbook.SHA256},
		fact{"host", p.Host},
		fact{"started", stamp(p.Start)},
		fact{"ended", stamp(p.End)},
		fact{"runs", fmt.Sprintf("%d of %d asked", len(r.Runs), p.Repeat)},
		fact{"re-check", recheckFact(p)},
	)
	if p.ClusterReused {
		f = append(f, fact{"cluster", "reused from before this invocation"})
	}
	return f
}

// quorumFact says how the controller quorum was formatted.
func quorumFact(q string) string {
	if q == "dynamic" {
		return "dynamic (KIP-853: formatted with --initial-controllers; voters can be added and removed)"
	}
	return q + " (controller.quorum.voters)"
}

// recheckFact says whether the reads' verdicts can be derived again from
// the evidence (kafkabook recheck).
func recheckFact(p results.Provenance) string {
	if p.ReadsStored {
		return "every read stored what it found: kafkabook recheck derives each tally again from events.jsonl"
	}
	return "not possible: recorded before kafkabook stored what each read found, so the tallies stand as recorded"
}

// txnProtocol says which transaction protocol the cluster finalized
// (KIP-890): what a reader of a transactions verdict needs first.
func txnProtocol(p results.Provenance) string {
	v, ok := p.TransactionVersion()
	switch {
	case !ok:
		return "not recorded (evidence from before kafkabook recorded the cluster's features)"
	case v >= 2:
		return fmt.Sprintf("transaction.version %d: KIP-890's (an epoch bump per transaction, partitions verified by the broker)", v)
	}
	return fmt.Sprintf("transaction.version %d: the classic protocol (before KIP-890)", v)
}

// featuresFact lists a cluster's finalized features, name=level.
func featuresFact(fs map[string]int16) string {
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(fs)) {
		parts = append(parts, fmt.Sprintf("%s=%d", n, fs[n]))
	}
	return strings.Join(parts, " ")
}

// clientFact is a client's library, version and the whole configuration
// it ran with, as it said at start-up (or, for franz-go, as the client
// read it back), and which of it kafkabook set itself.
func clientFact(c results.ClientInfo) string {
	lib := c.Library + " " + c.Version
	if c.Librdkafka != "" {
		lib += " (librdkafka " + c.Librdkafka + ")"
	}
	var conf []string
	for _, kv := range sortedFacts(c.Config) {
		conf = append(conf, kv.Key+"="+kv.Value)
	}
	out := lib + " on " + c.Runtime + "; " + strings.Join(conf, " ")
	if len(c.SetByKafkabook) > 0 {
		out += "; set by kafkabook, not by the runbook or the library's defaults: " + strings.Join(c.SetByKafkabook, " ")
	}
	return out
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
