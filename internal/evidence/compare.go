package evidence

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kafkabook/kafkabook/internal/safetext"
	"github.com/kafkabook/kafkabook/results"
)

// Comparison is two result sets side by side, row by row.
type Comparison struct {
	A, B    string // how the sets were named (their directories)
	Rows    []Row
	Changed int // rows marked changed
}

// Row is one compared quantity. Changed marks a difference: any for
// counts, verdicts and settings; for a latency, one of more than
// LatencyTolerance of the larger value (timing noise is not a change).
type Row struct {
	Section string // "" for the run set, else the experiment or "expectations"
	Name    string
	A, B    string
	Changed bool
}

// LatencyTolerance is the relative difference of two latencies below which
// Compare does not mark them changed.
const LatencyTolerance = 0.10

// Compare compares the result sets a and b, named nameA and nameB.
func Compare(a, b *results.Results, nameA, nameB string) Comparison {
	c := Comparison{A: nameA, B: nameB}
	ba, bb := Summarize(a, "", ""), Summarize(b, "", "")
	add := func(section, name, va, vb string, changed bool) {
		c.Rows = append(c.Rows, Row{section, name, va, vb, changed})
		if changed {
			c.Changed++
		}
	}
	same := func(section, name, va, vb string) { add(section, name, va, vb, va != vb) }
	same("", "title", ba.Title, bb.Title)
	same("", "runbook", ba.Runbook, bb.Runbook)
	same("", "runbook sha256", short(ba.RunbookSHA256), short(bb.RunbookSHA256))
	same("", "kafka", ba.Kafka, bb.Kafka)
	same("", "client", ba.ClientLabel(), bb.ClientLabel())
	if len(ba.OtherClients)+len(bb.OtherClients) > 0 {
		same("", "other clients, named by steps", strings.Join(ba.OtherClients, "; "), strings.Join(bb.OtherClients, "; "))
	}
	same("", "backend", ba.Backend, bb.Backend)
	same("", "nodes", fmt.Sprint(ba.Nodes), fmt.Sprint(bb.Nodes))
	same("", "broker overrides", sortedPairs(ba.Broker, false), sortedPairs(bb.Broker, false))
	same("", "parameters", sortedPairs(ba.Params, false), sortedPairs(bb.Params, false))
	same("", "verdict", verdict(ba), verdict(bb))

	ea, eb := byLabel(ba.Experiments), byLabel(bb.Experiments)
	for _, label := range union(labels(ba.Experiments), labels(bb.Experiments)) {
		xa, oka := ea[label]
		xb, okb := eb[label]
		count := func(name string, f func(Experiment) int) {
			va, vb := "-", "-"
			if oka {
				va = fmt.Sprint(f(xa))
			}
			if okb {
				vb = fmt.Sprint(f(xb))
			}
			same(label, name, va, vb)
		}
		count("runs", func(e Experiment) int { return e.Runs })
		count("acked", func(e Experiment) int { return e.Acked })
		count("lost", func(e Experiment) int { return e.Lost })
		// How often such a run loses any acknowledged message, bounded at
		// 95%: a change only when the two intervals do not overlap, so
		// that 0 of 4 against 1 of 4 is not called a difference.
		ra, rb := "-", "-"
		if oka && xa.RunsLost.N > 0 {
			ra = xa.RunsLost.Short() + fmt.Sprintf(" (%d of %d)", xa.RunsLost.K, xa.RunsLost.N)
		}
		if okb && xb.RunsLost.N > 0 {
			rb = xb.RunsLost.Short() + fmt.Sprintf(" (%d of %d)", xb.RunsLost.K, xb.RunsLost.N)
		}
		add(label, "runs losing, 95% bound", ra, rb, (ra == "-") != (rb == "-") || (ra != "-" && (xa.RunsLost.Hi < xb.RunsLost.Lo || xb.RunsLost.Hi < xa.RunsLost.Lo)))
		count("duplicates", func(e Experiment) int { return e.Duplicates })
		count("failed", func(e Experiment) int { return e.Failed })
		count("unknown", func(e Experiment) int { return e.Unknown })
		va, vb := "-", "-"
		if oka {
			va = Duration(xa.P99)
		}
		if okb {
			vb = Duration(xb.P99)
		}
		add(label, "p99 ack latency", va, vb, oka != okb || latencyChanged(xa.P99, xb.P99))
	}

	xa, xb := byExpr(ba.Expectations), byExpr(bb.Expectations)
	for _, expr := range union(exprs(ba.Expectations), exprs(bb.Expectations)) {
		va, vb := "-", "-"
		if x, ok := xa[expr]; ok {
			va = fmt.Sprintf("held %d of %d", x.Held, x.Runs)
		}
		if x, ok := xb[expr]; ok {
			vb = fmt.Sprintf("held %d of %d", x.Held, x.Runs)
		}
		same("expectations", expr, va, vb)
	}
	return c
}

func verdict(b Block) string {
	s := fmt.Sprintf("held in %d of %d runs", b.Held, b.Runs)
	if !b.Complete {
		s += " (incomplete)"
	}
	return s
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func latencyChanged(a, b time.Duration) bool {
	hi, lo := max(a, b), min(a, b)
	if hi == lo {
		return false
	}
	return float64(hi-lo) > LatencyTolerance*float64(hi)
}

func byLabel(es []Experiment) map[string]Experiment {
	m := map[string]Experiment{}
	for _, e := range es {
		m[e.Label] = e
	}
	return m
}

func labels(es []Experiment) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Label)
	}
	return out
}

// byExpr keys expectations by their expression; a runbook that checks the
// same expression twice is told apart by position.
func byExpr(xs []ExpectationVerdict) map[string]ExpectationVerdict {
	m := map[string]ExpectationVerdict{}
	keys := exprs(xs)
	for i, x := range xs {
		m[keys[i]] = x
	}
	return m
}

func exprs(xs []ExpectationVerdict) []string {
	seen := map[string]int{}
	var out []string
	for _, x := range xs {
		seen[x.Expr]++
		k := x.Expr
		if n := seen[x.Expr]; n > 1 {
			k = fmt.Sprintf("%s (#%d)", x.Expr, n)
		}
		out = append(out, k)
	}
	return out
}

// union is a's items, then b's that a lacks, in order.
func union(a, b []string) []string {
	out := append([]string(nil), a...)
	in := map[string]bool{}
	for _, s := range a {
		in[s] = true
	}
	for _, s := range b {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}

// Text writes the comparison as an aligned table; a changed row ends in
// "*".
func (c Comparison) Text(w io.Writer) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\tA\tB\t\n")
	fmt.Fprintf(tw, "\t%s\t%s\t\n", cellText(c.A), cellText(c.B))
	section := ""
	for _, r := range c.Rows {
		if r.Section != section {
			section = r.Section
			fmt.Fprintf(tw, "\t\t\t\n")
			name := section
			if section != "expectations" {
				name = "experiment " + section
			}
			fmt.Fprintf(tw, "%s\t\t\t\n", name)
		}
		mark := ""
		if r.Changed {
			mark = "*"
		}
		indent := ""
		if r.Section != "" {
			indent = "  "
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\n", indent, cellText(r.Name), cellText(r.A), cellText(r.B), mark)
	}
	fmt.Fprintf(tw, "\t\t\t\n")
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(buf.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%d changed (marked *; latencies within %.0f%% count as the same)\n", c.Changed, LatencyTolerance*100)
	return err
}

// cellWidth bounds a cell of the terminal table: a 1 MiB title would
// otherwise pad every row to its width.
const cellWidth = 100

// cellText is a value as a terminal cell: one line, no control
// character, bidi controls shown, at most cellWidth characters.
func cellText(s string) string { return safetext.Terminal(s, cellWidth) }

// pageHead opens every page this package writes: static, no request (the
// content security policy allows inline styles only).
const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
`

var compareHTML = template.Must(template.New("compare").Parse(pageHead + `<title>kafkabook compare: {{.A}} vs {{.B}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
table { border-collapse: collapse; }
th, td { padding: .25rem .75rem; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
th.section { background: #f4f4f4; }
tr.changed td { background: #fff4d6; }
td.mark { font-weight: bold; color: #b05000; }
code { font-size: 95%; }
</style>
</head>
<body>
<h1>Comparison</h1>
<p>A: <code>{{.A}}</code><br>B: <code>{{.B}}</code></p>
<p>{{.Changed}} changed (marked *; latencies within {{.Tolerance}}% count as the same).</p>
<table>
<thead><tr><th></th><th>A</th><th>B</th><th></th></tr></thead>
<tbody>
{{- range .Groups}}
{{- if .Name}}
<tr><th class="section" colspan="4">{{.Name}}</th></tr>
{{- end}}
{{- range .Rows}}
<tr{{if .Changed}} class="changed"{{end}}><td>{{.Name}}</td><td>{{.A}}</td><td>{{.B}}</td><td class="mark">{{if .Changed}}*{{end}}</td></tr>
{{- end}}
{{- end}}
</tbody>
</table>
</body>
</html>
`))

// HTML writes the comparison as a static page: no scripts, no requests.
func (c Comparison) HTML(w io.Writer) error {
	type group struct {
		Name string
		Rows []Row
	}
	var groups []group
	for _, r := range c.Rows {
		if len(groups) == 0 || groups[len(groups)-1].Rows[0].Section != r.Section {
			name := r.Section
			if name != "" && name != "expectations" {
				name = "experiment " + name
			}
			groups = append(groups, group{Name: name})
		}
		groups[len(groups)-1].Rows = append(groups[len(groups)-1].Rows, r)
	}
	return compareHTML.Execute(w, map[string]any{
		"A": c.A, "B": c.B, "Changed": c.Changed, "Tolerance": fmt.Sprintf("%.0f", LatencyTolerance*100), "Groups": groups,
	})
}
