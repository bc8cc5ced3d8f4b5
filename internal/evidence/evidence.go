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
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// Block is the evidence block of one result set: what an ADR cites.
type Block struct {
	Title         string `json:"title"`
	Runbook       string `json:"runbook"`      // name, e.g. producer-acks
	RunbookPath   string `json:"runbook_path"` // as given to kafkabook run
	RunbookSHA256 string `json:"runbook_sha256"`
	ResultsSHA256 string `json:"results_sha256"`
	Complete      bool   `json:"complete"`
	Error         string `json:"error,omitempty"`
	Held          int    `json:"held"` // runs in which every expectation held
	Runs          int    `json:"runs"`
	Kafka         string `json:"kafka"`
	// Client is the client the runs produced through, as asked: franz-go,
	// java, librdkafka@2.15.1; ClientVersion its library at its exact
	// version from the provenance (franz-go v1.22.3, kafka-clients 4.3.1;
	// confluent-kafka 2.15.1, librdkafka 2.15.1), "" when not recorded.
	// OtherClients are the clients steps named besides it.
	Client        string            `json:"client"`
	ClientVersion string            `json:"client_version"`
	OtherClients  []string          `json:"other_clients,omitempty"`
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
	// RunsLost and MessagesLost bound how often such a run loses any
	// acknowledged message and how often an acknowledged message is lost,
	// over the runs whose final read judged it (results.LossBounds).
	RunsLost     results.Bound `json:"runs_lost"`
	MessagesLost results.Bound `json:"messages_lost"`
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
	// Decision is, for a rate over runs (runs_lost(t) < 5% at 95%),
	// the last run's word on it: "held", "failed" or "undecided" after
	// Runs runs; "" for an expectation judged in each run.
	Decision string `json:"decision,omitempty"`
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
	b.Client, b.ClientVersion, b.OtherClients = clientOf(res.Provenance)
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
		e.RunsLost, e.MessagesLost = res.LossBounds(label)
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
			if e := results.FindRateMeasure(strings.TrimSpace(strings.SplitN(x.Expr, "(", 2)[0])); e != nil {
				out[i].Decision = decision(x)
				out[i].Actual = []string{x.Actual} // each run's bound covers the runs before it: the last says it all
			}
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

// decision is a rate expectation's verdict as the last run recorded it.
func decision(x results.Expectation) string {
	switch {
	case x.Undecided:
		return "undecided"
	case x.Held:
		return "held"
	}
	return "failed"
}
