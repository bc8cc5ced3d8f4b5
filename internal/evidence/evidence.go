// Package evidence turns the evidence of runs (package results) into the
// forms a decision or a CI system reads: a block to paste into an
// architecture decision record (Markdown or JSON), JUnit XML, and a
// comparison of two result sets (text or HTML). It is pure: results in,
// text out; reading files and hashing them is the caller's job. Output
// depends on the evidence alone (maps sorted, no clock), so it can be
// golden-tested and diffed.
package evidence

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// Block is the evidence block of one result set: what an ADR cites.
type Block struct {
	Title         string            `json:"title"`
	Runbook       string            `json:"runbook"`      // name, e.g. producer-acks
	RunbookPath   string            `json:"runbook_path"` // as given to kafkabook run
	RunbookSHA256 string            `json:"runbook_sha256"`
	ResultsSHA256 string            `json:"results_sha256"`
	Complete      bool              `json:"complete"`
	Error         string            `json:"error,omitempty"`
	Held          int               `json:"held"` // runs in which every expectation held
	Runs          int               `json:"runs"`
	Kafka         string            `json:"kafka"`
	Backend       string            `json:"backend"`
	Nodes         int               `json:"nodes"`
	Broker        map[string]string `json:"broker"` // server.properties overrides
	Params        map[string]string `json:"params"`
	// TopicConfigs are the --config settings of each `topic create` step,
	// by experiment label; TopicConfigsRecorded is false when the evidence
	// holds no `topic create` step to read them from.
	TopicConfigs         map[string]map[string]string `json:"topic_configs"`
	TopicConfigsRecorded bool                         `json:"topic_configs_recorded"`
	Experiments          []Experiment                 `json:"experiments"`
	Groups               []Group                      `json:"groups,omitempty"` // consumer groups, when the runbook has any
	Expectations         []ExpectationVerdict         `json:"expectations"`
	Tool                 string                       `json:"tool"`
	Commit               string                       `json:"commit"`
	Start                time.Time                    `json:"start"` // when the evidence was made
	Report               string                       `json:"report"`
}

// Experiment is one experiment (topic label) summed over every run.
type Experiment struct {
	Label      string `json:"label"`
	Acked      int    `json:"acked"`
	Lost       int    `json:"lost"`
	LostPerRun []int  `json:"lost_per_run"` // -1: the run never read it
	Duplicates int    `json:"duplicates"`
	Failed     int    `json:"failed"`
	Unknown    int    `json:"unknown"`
	// P99 is the 99th percentile ack latency over every run, nanoseconds.
	P99 time.Duration `json:"p99_ns"`
	// Runs counts the runs that produced to or read the experiment.
	Runs int `json:"runs"`
}

// Group is one consumer group summed over every run that tallied it.
type Group struct {
	Label        string `json:"label"`
	Commit       string `json:"commit"`
	Dedup        string `json:"dedup"`
	Delivered    int    `json:"delivered"`
	Applied      int    `json:"applied"`
	AppliedTwice int    `json:"applied_twice"`
	Skipped      int    `json:"skipped"`
	Unapplied    int    `json:"unapplied"` // lost in the consumer
	Crashes      int    `json:"crashes"`
	Runs         int    `json:"runs"`
}

// ExpectationVerdict is one `expect` step over every run.
type ExpectationVerdict struct {
	Pos    string   `json:"pos"`
	Expr   string   `json:"expr"`
	Held   int      `json:"held"`
	Runs   int      `json:"runs"`   // runs that checked it
	Actual []string `json:"actual"` // measured value, per run that checked it
}

// Summarize makes the block of res. resultsSHA256 is the hex sha256 of the
// results.json res was read from, report the link to its report.
func Summarize(res *results.Results, resultsSHA256, report string) Block {
	held, runs := res.Verdict()
	b := Block{
		Title: res.Title, Runbook: res.Runbook.Name, RunbookPath: res.Runbook.Path,
		RunbookSHA256: res.Runbook.SHA256, ResultsSHA256: resultsSHA256,
		Complete: res.Complete, Error: res.Error, Held: held, Runs: runs,
		Kafka: res.Provenance.Kafka, Backend: res.Provenance.Backend, Nodes: res.Provenance.Nodes,
		Broker: nonNil(res.Provenance.Broker), Params: nonNil(res.Provenance.Params),
		Tool: res.Provenance.Tool, Commit: res.Provenance.Commit, Start: res.Provenance.Start.UTC(),
		Report: report, Experiments: experiments(res), Expectations: Expectations(res),
	}
	b.TopicConfigs, b.TopicConfigsRecorded = topicConfigs(res)
	b.Groups = groups(res)
	return b
}

func groups(res *results.Results) []Group {
	var out []Group
	index := map[string]int{}
	for _, run := range res.Runs {
		for _, c := range run.Consumers {
			i, ok := index[c.Label]
			if !ok {
				i = len(out)
				index[c.Label] = i
				out = append(out, Group{Label: c.Label, Commit: c.Commit, Dedup: c.Dedup})
			}
			g := &out[i]
			for _, m := range c.Members {
				if m.How == results.MemberCrashed {
					g.Crashes++
				}
			}
			if t := c.Tally; t != nil {
				g.Runs++
				g.Delivered += t.Delivered
				g.Applied += t.Applied
				g.AppliedTwice += len(t.AppliedTwice)
				g.Skipped += len(t.Skipped)
				g.Unapplied += len(t.Unapplied)
			}
		}
	}
	return out
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func experiments(res *results.Results) []Experiment {
	out := []Experiment{}
	for _, label := range res.Labels() {
		e := Experiment{Label: label, LostPerRun: res.LostPerRun(label), Lost: res.TotalLost(label),
			P99: res.LatencyAll(label).P99}
		for _, run := range res.Runs {
			used := false
			for _, t := range run.Topics {
				used = used || t.Label == label
			}
			if t, ok := run.Tally(label); ok {
				used = true
				e.Duplicates += len(t.Duplicates)
			}
			if used {
				e.Runs++
			}
			e.Acked += run.Count(label, results.StatusOK)
			e.Failed += run.Count(label, results.StatusFailed)
			e.Unknown += run.Count(label, results.StatusUnknown)
		}
		out = append(out, e)
	}
	return out
}

// Expectations sums each `expect` step (by position and text) over the
// runs, in the order first met.
func Expectations(res *results.Results) []ExpectationVerdict {
	out := []ExpectationVerdict{}
	index := map[string]int{}
	for _, run := range res.Runs {
		for _, x := range run.Expectations {
			key := x.Pos + "\x00" + x.Expr
			i, ok := index[key]
			if !ok {
				i = len(out)
				index[key] = i
				out = append(out, ExpectationVerdict{Pos: x.Pos, Expr: x.Expr, Actual: []string{}})
			}
			out[i].Runs++
			if x.Held {
				out[i].Held++
			}
			out[i].Actual = append(out[i].Actual, x.Actual)
		}
	}
	return out
}

// topicConfigs reads the --config settings of the `topic create` steps of
// the first run that has any, with the runbook's parameters substituted.
func topicConfigs(res *results.Results) (map[string]map[string]string, bool) {
	out := map[string]map[string]string{}
	found := false
	for _, run := range res.Runs {
		for _, s := range run.Steps {
			f := strings.Fields(expand(s.Text, res.Provenance.Params))
			if len(f) < 3 || f[0] != "topic" || f[1] != "create" {
				continue
			}
			found = true
			cfg := map[string]string{}
			for i := 3; i < len(f); i++ {
				v, ok := strings.CutPrefix(f[i], "--config=")
				if !ok && f[i] == "--config" && i+1 < len(f) {
					i++
					v, ok = f[i], true
				}
				if k, val, eq := strings.Cut(v, "="); ok && eq {
					cfg[k] = val
				}
			}
			out[f[2]] = cfg
		}
		if found {
			break
		}
	}
	return out, found
}

// expand substitutes ${name} with the runbook's parameters.
func expand(s string, params map[string]string) string {
	for _, k := range slices.Sorted(maps.Keys(params)) {
		s = strings.ReplaceAll(s, "${"+k+"}", params[k])
	}
	return s
}

// sortedPairs formats a map as `k=v` pairs in key order, or "none".
func sortedPairs(m map[string]string, quote bool) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		p := k + "=" + m[k]
		if quote {
			p = "`" + p + "`"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// Duration formats a latency as the reports do: to the millisecond, or to
// the microsecond below one.
func Duration(d time.Duration) string {
	if d > 0 && d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// JSON writes the block as indented JSON (maps sorted by key).
func (b Block) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

// Markdown writes the block as Markdown to paste into a decision record.
func (b Block) Markdown(w io.Writer) error {
	var s strings.Builder
	fmt.Fprintf(&s, "#### Evidence: %s\n\n", mdText(b.Title))
	fmt.Fprintf(&s, "**Verdict:** expectations held in %d of %d runs", b.Held, b.Runs)
	fmt.Fprintf(&s, " (Kafka %s, %s backend, %d nodes", b.Kafka, b.Backend, b.Nodes)
	if !b.Start.IsZero() {
		fmt.Fprintf(&s, ", run %s", b.Start.Format("2006-01-02"))
	}
	s.WriteString(").")
	if !b.Complete {
		fmt.Fprintf(&s, " **The run did not complete**: %s.", mdText(b.Error))
	}
	s.WriteString("\n\n")
	s.WriteString("| experiment | acked | lost | duplicates | failed | unknown | p99 ack latency | runs |\n")
	s.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, e := range b.Experiments {
		fmt.Fprintf(&s, "| `%s` | %d | %d | %d | %d | %d | %s | %d |\n",
			e.Label, e.Acked, e.Lost, e.Duplicates, e.Failed, e.Unknown, Duration(e.P99), e.Runs)
	}
	if len(b.Groups) > 0 {
		s.WriteString("\n| consumer group | commit | dedup | delivered | applied | applied twice | skipped | unapplied (lost in the consumer) | crashes | runs |\n")
		s.WriteString("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, g := range b.Groups {
			fmt.Fprintf(&s, "| `%s` | %s | %s | %d | %d | %d | %d | %d | %d | %d |\n",
				g.Label, mdText(g.Commit), mdText(g.Dedup), g.Delivered, g.Applied, g.AppliedTwice, g.Skipped, g.Unapplied, g.Crashes, g.Runs)
		}
	}
	if len(b.Expectations) > 0 {
		s.WriteString("\n| expectation | held | measured | step |\n| --- | ---: | --- | --- |\n")
		for _, x := range b.Expectations {
			fmt.Fprintf(&s, "| `%s` | %d of %d | %s | %s |\n", x.Expr, x.Held, x.Runs,
				mdText(strings.Join(compactValues(x.Actual), ", ")), mdText(x.Pos))
		}
	}
	s.WriteString("\n")
	fmt.Fprintf(&s, "- Kafka: %s; backend: %s; nodes: %d\n", b.Kafka, b.Backend, b.Nodes)
	fmt.Fprintf(&s, "- broker overrides: %s\n", sortedPairs(b.Broker, true))
	switch {
	case !b.TopicConfigsRecorded:
		s.WriteString("- topic configs: not in this evidence (no `topic create` step recorded)\n")
	default:
		var parts []string
		for _, label := range slices.Sorted(maps.Keys(b.TopicConfigs)) {
			cfg := b.TopicConfigs[label]
			v := "broker defaults"
			if len(cfg) > 0 {
				v = sortedPairs(cfg, true)
			}
			parts = append(parts, fmt.Sprintf("`%s`: %s", label, v))
		}
		fmt.Fprintf(&s, "- topic configs: %s\n", strings.Join(parts, "; "))
	}
	fmt.Fprintf(&s, "- runbook parameters: %s\n", sortedPairs(b.Params, true))
	fmt.Fprintf(&s, "- runbook: `%s` (%s), sha256 `%s`\n", b.Runbook, mdText(b.RunbookPath), b.RunbookSHA256)
	fmt.Fprintf(&s, "- results.json sha256 `%s`\n", b.ResultsSHA256)
	fmt.Fprintf(&s, "- made by kafkabook %s (commit %s)\n", b.Tool, b.Commit)
	fmt.Fprintf(&s, "- report: [%s](%s)\n", mdText(b.Report), mdLink(b.Report))
	_, err := io.WriteString(w, s.String())
	return err
}

// compactValues shows a list of per-run values; equal values once with a
// count ("10 ×4").
func compactValues(vs []string) []string {
	var out []string
	for i := 0; i < len(vs); {
		j := i
		for j < len(vs) && vs[j] == vs[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, fmt.Sprintf("%s ×%d", vs[i], j-i))
		} else {
			out = append(out, vs[i])
		}
		i = j
	}
	return out
}

// mdText escapes what would break a Markdown table cell or inline text.
func mdText(s string) string {
	r := strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`, "`", "\\`", "*", `\*`, "_", `\_`)
	return r.Replace(s)
}

// mdLink makes a path safe as a Markdown link target.
func mdLink(s string) string {
	r := strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E")
	return r.Replace(s)
}
