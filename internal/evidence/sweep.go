package evidence

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// Sweep is what a sweep's runs say of its settings (runbook.Combinations):
// for each combination, on each release, through each client, for each
// experiment (topic), the bounds of its losses, duplicates and refused
// writes and its ack latency, over every run of that cell given to
// SweepOf; the combinations no other beats on both durability and latency;
// and, for each combination that lost, the closest one that did not.
type Sweep struct {
	Name  string     `json:"name"`
	Rows  []SweepRow `json:"rows"`
	Fixes []Fix      `json:"fixes"`
	// Link is the settings page's link the Markdown block ends with (the
	// line a decision record's check finds the block's end by).
	Link string `json:"settings"`
}

// SweepRow is one combination of a sweep for one experiment on one
// release through one client, summed over its runs.
type SweepRow struct {
	Combination   string `json:"combination"` // acks=1 mis=2
	Kafka         string `json:"kafka"`
	Client        string `json:"client"`
	ClientVersion string `json:"client_version"`
	Experiment
	// Duplicated bounds the share of acknowledged messages found more
	// than once; Refused the share of sends the cluster refused (failed).
	Duplicated results.Bound `json:"duplicated"`
	Refused    results.Bound `json:"refused"`
	P50        time.Duration `json:"p50_ns"`
	// Undominated marks a combination no other of the same experiment,
	// release and client beats on durability (the runs-lost bound's upper
	// end, then the lost messages') without losing on p99 latency, or on
	// latency without losing on durability.
	Undominated bool     `json:"undominated"`
	Dirs        []string `json:"dirs"` // the run directories, as given
}

// Fix is the smallest change of settings that made a lossy combination
// lose nothing: of the combinations with no run lost on the same release,
// client and experiment whose runs-lost bound lies wholly below the lossy
// one's, the one differing in the fewest parameters.
type Fix struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Change string `json:"change"` // acks=1 → acks=all
	Kafka  string `json:"kafka"`
	Client string `json:"client"`
	Label  string `json:"label"`
	Lossy  string `json:"lossy"` // the From row's runs-lost bound, in words
	Safe   string `json:"safe"`  // the To row's
}

// SweepOf sums the result sets of one sweep (each a combination's runs on
// one release through one client; dirs[i] names sets[i]), grouping sets
// of the same cell.
func SweepOf(name string, sets []*results.Results, dirs []string) Sweep {
	type cell struct{ combination, kafka, client string }
	merged := map[cell]*results.Results{}
	cellDirs := map[cell][]string{}
	var order []cell
	for i, res := range sets {
		c := cell{res.Runbook.Combination, res.Provenance.Kafka, res.Provenance.Client}
		if merged[c] == nil {
			cp := *res
			cp.Runs = nil
			merged[c] = &cp
			order = append(order, c)
		}
		merged[c].Runs = append(merged[c].Runs, res.Runs...)
		cellDirs[c] = append(cellDirs[c], dirs[i])
	}
	s := Sweep{Name: name, Rows: []SweepRow{}, Fixes: []Fix{}}
	for _, c := range order {
		res := merged[c]
		client, version, _ := clientOf(res.Provenance)
		for _, e := range experiments(res) {
			sent := int64(e.Acked + e.Failed + e.Unknown)
			s.Rows = append(s.Rows, SweepRow{
				Combination: c.combination, Kafka: c.kafka, Client: client, ClientVersion: version,
				Experiment: e,
				Duplicated: results.BoundOf(int64(e.Duplicates), int64(e.Acked)),
				Refused:    results.BoundOf(int64(e.Failed), sent),
				P50:        res.LatencyAll(e.Label).P50,
				Dirs:       cellDirs[c],
			})
		}
	}
	slices.SortStableFunc(s.Rows, func(a, b SweepRow) int {
		return cmp.Or(cmp.Compare(a.Label, b.Label), cmp.Compare(a.Kafka, b.Kafka), cmp.Compare(a.Client, b.Client))
	})
	for i := range s.Rows {
		s.Rows[i].Undominated = !slices.ContainsFunc(s.Rows, func(o SweepRow) bool { return peers(o, s.Rows[i]) && dominates(o, s.Rows[i]) })
	}
	for _, r := range s.Rows {
		if r.RunsLost.K == 0 {
			continue
		}
		var best *SweepRow
		for j, o := range s.Rows {
			// A fix must lose nothing, and its bound must lie wholly below
			// the lossy one's: overlapping intervals are no difference the
			// runs show (as compare judges a change).
			if !peers(o, r) || o.RunsLost.K > 0 || o.RunsLost.N == 0 || o.RunsLost.Hi >= r.RunsLost.Lo {
				continue
			}
			if best == nil || len(changes(r.Combination, o.Combination)) < len(changes(r.Combination, best.Combination)) {
				best = &s.Rows[j]
			}
		}
		if best != nil {
			s.Fixes = append(s.Fixes, Fix{From: r.Combination, To: best.Combination,
				Change: strings.Join(changes(r.Combination, best.Combination), ", "),
				Kafka:  r.Kafka, Client: r.Client, Label: r.Label,
				Lossy: r.RunsLost.Short(), Safe: best.RunsLost.Short()})
		}
	}
	return s
}

// peers are rows of one experiment, release and client: the rows a
// combination is compared with.
func peers(a, b SweepRow) bool {
	return a.Label == b.Label && a.Kafka == b.Kafka && a.Client == b.Client && a.Combination != b.Combination
}

// dominates says a is no worse than b on durability (the upper ends of
// its runs-lost, then lost-messages bounds) and on p99 latency, and better
// on one.
func dominates(a, b SweepRow) bool {
	dur := cmp.Or(cmp.Compare(a.RunsLost.Hi, b.RunsLost.Hi), cmp.Compare(a.MessagesLost.Hi, b.MessagesLost.Hi))
	lat := cmp.Compare(a.P99, b.P99)
	return dur <= 0 && lat <= 0 && (dur < 0 || lat < 0)
}

// changes lists the parameters two combinations set otherwise, as
// "acks=1 → acks=all".
func changes(from, to string) []string {
	f, t := strings.Fields(from), strings.Fields(to)
	var out []string
	for i := range min(len(f), len(t)) {
		if f[i] != t[i] {
			_, v, _ := strings.Cut(t[i], "=")
			out = append(out, f[i]+" → "+v)
		}
	}
	return out
}

// JSON writes the sweep as indented JSON.
func (s Sweep) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// Markdown writes the sweep as a block to paste into a decision record.
func (s Sweep) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "#### Sweep: %s\n\n", mdText(s.Name))
	b.WriteString("| combination | experiment | Kafka | client | runs | runs losing (95%) | acked lost (95%) | duplicated (95%) | refused (95%) | p50 | p99 | best |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range s.Rows {
		best := ""
		if r.Undominated {
			best = "★"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |\n",
			mdCode(r.Combination, true), mdText(r.Label), mdText(r.Kafka), mdText(clientCell(r.Client, r.ClientVersion)), r.Runs,
			r.RunsLost.Short(), r.MessagesLost.Short(), r.Duplicated.Short(), r.Refused.Short(),
			Duration(r.P50), Duration(r.P99), best)
	}
	b.WriteString("\n★: no other combination of the same experiment, release and client is as durable (the upper end of its runs-losing bound, then of its lost messages') and as fast (p99), and better in one. Every share is the exact binomial (Clopper–Pearson) interval at 95%, or its one-sided upper end at 0.\n")
	if len(s.Fixes) > 0 {
		b.WriteString("\nThe smallest change that stopped the losses:\n\n")
		for _, f := range s.Fixes {
			fmt.Fprintf(&b, "- %s on Kafka %s through %s: %s to %s, %s (runs losing %s → %s)\n",
				mdText(f.Label), mdText(f.Kafka), mdText(f.Client), mdCode(f.From, false), mdCode(f.To, false), mdCode(f.Change, false), f.Lossy, f.Safe)
		}
	}
	fmt.Fprintf(&b, "\n- settings: [%s](%s)\n", mdText(s.Link), mdLink(s.Link))
	_, err := io.WriteString(w, b.String())
	return err
}

func clientCell(client, version string) string {
	if version == "" {
		return client
	}
	if strings.HasPrefix(version, client) {
		return version // franz-go v1.22.3
	}
	return client + " (" + version + ")"
}

var settingsHTML = template.Must(template.New("settings").Funcs(template.FuncMap{"dur": Duration}).Parse(pageHead + `<title>kafkabook settings: {{.Name}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
table { border-collapse: collapse; }
th, td { padding: .25rem .75rem; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
tr.best td { background: #eef8ee; }
tr.lossy td.lost { color: #b00020; font-weight: bold; }
code { font-size: 95%; }
</style>
</head>
<body>
<h1>Settings: {{.Name}}</h1>
<p>Each combination of the sweep, on each Kafka release, through each client, for each experiment, over every run of it in this site.
Every share is the exact binomial (Clopper–Pearson) interval at 95% confidence, or its one-sided upper end when nothing was counted.
★ (shaded): no other combination of the same experiment, release and client is as durable (the upper end of its runs-losing bound, then of its lost messages') and as fast (p99 ack latency), and better in one.</p>
<table>
<thead><tr><th>combination</th><th>experiment</th><th>Kafka</th><th>client</th><th>runs</th><th>runs losing</th><th>acked lost</th><th>duplicated</th><th>refused</th><th>p50</th><th>p99</th><th></th></tr></thead>
<tbody>
{{- range .Rows}}
<tr class="{{if .Undominated}}best{{end}}{{if .RunsLost.K}} lossy{{end}}"><td><code>{{.Combination}}</code></td><td>{{.Label}}</td><td>{{.Kafka}}</td><td>{{.Client}}{{if .ClientVersion}} ({{.ClientVersion}}){{end}}</td><td>{{.Runs}}</td><td class="lost">{{.RunsLost.Short}}</td><td class="lost">{{.MessagesLost.Short}}</td><td>{{.Duplicated.Short}}</td><td>{{.Refused.Short}}</td><td>{{dur .P50}}</td><td>{{dur .P99}}</td><td>{{if .Undominated}}★{{end}}</td></tr>
{{- end}}
</tbody>
</table>
{{- if .Fixes}}
<h2>The smallest change that stopped the losses</h2>
<ul>
{{- range .Fixes}}
<li>{{.Label}} on Kafka {{.Kafka}} through {{.Client}}: <code>{{.Change}}</code> (from <code>{{.From}}</code> to <code>{{.To}}</code>; runs losing {{.Lossy}} → {{.Safe}})</li>
{{- end}}
</ul>
{{- end}}
<h2>Runs</h2>
<ul>
{{- range .Rows}}{{$c := .Combination}}{{range .Dirs}}
<li><code>{{$c}}</code>: <code>{{.}}</code></li>
{{- end}}{{end}}
</ul>
</body>
</html>
`))

// HTML writes the sweep's settings page: static, no scripts, no requests,
// every value from the evidence escaped.
func (s Sweep) HTML(w io.Writer) error { return settingsHTML.Execute(w, s) }
