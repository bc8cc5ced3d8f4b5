package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/kafkabook/kafkabook/internal/evidence"
	"github.com/kafkabook/kafkabook/internal/explain"
	"github.com/kafkabook/kafkabook/results"
)

// SummaryFile is the name of the summary a page render leaves beside a
// run's results.json: what the site index shows of the run, so that a run
// updates the index without reading any other run's evidence.
const SummaryFile = "summary.json"

// summaryVersion changes whenever runSummary does: a summary of another
// version is not trusted, and the run's evidence is read again.
const summaryVersion = 4

// summaryFile is a summary as stored. It is a cache of what the report
// derives from the evidence, not evidence: it names the file it was made
// from by sha256, and `kafkabook render` rewrites it from the evidence.
type summaryFile struct {
	Version  int          `json:"version"`
	Evidence evidenceFile `json:"evidence"`
	Run      runSummary   `json:"run"`
}

// writeSummary stores the summary of the run in dir.
func writeSummary(dir string, from evidenceFile, s runSummary) error {
	data, err := json.Marshal(summaryFile{Version: summaryVersion, Evidence: from, Run: s})
	if err != nil {
		return fmt.Errorf("report: summary of %s: %w", dir, err)
	}
	return writeFile(filepath.Join(dir, SummaryFile), append(data, '\n'))
}

// storedSummary is the stored summary of the run in d, when there is one of
// this version and it still describes the run's evidence file (same name,
// same sha256: the file is hashed, not decoded).
func (d *runDir) storedSummary() (runSummary, bool) {
	data, _, err := d.read(SummaryFile)
	if err != nil {
		return runSummary{}, false
	}
	var sf summaryFile
	if json.Unmarshal(data, &sf) != nil || sf.Version != summaryVersion || sf.Evidence.SHA256 == "" {
		return runSummary{}, false
	}
	name := results.FileName
	if !d.exists(name) {
		name = results.EventsFileName
	}
	if sf.Evidence.Name != name {
		return runSummary{}, false
	}
	if digest, err := d.hash(name); err != nil || digest != sf.Evidence.SHA256 {
		return runSummary{}, false
	}
	return sf.Run, true
}

// runSummary is what the site index needs of a run directory, so that the
// site never holds every run's evidence in memory at once.
type runSummary struct {
	Runbook string // the runbook's name and Kafka version, for a run
	Kafka   string // directory outside the <runbook>/kafka-<version>/ layout
	// Client is the client the runbook ran with (provenance client);
	// "" for franz-go.
	Client string `json:",omitempty"`
	// Backend is where the cluster ran (local, docker, kubernetes,
	// external): the index names it beside each run.
	Backend string `json:",omitempty"`
	// Sweep and Combination are a swept runbook's (results.Runbook): the
	// index links the sweep's settings page.
	Sweep       string `json:",omitempty"`
	Combination string `json:",omitempty"`
	Title       string
	Labels      []string
	Lost        map[string][]int // per label, per run; -1 when not read
	Unseen      map[string][]int // per label, per run, for runs judged by a snapshot; else 0
	Snapshot    map[string][]bool
	Acked       map[string]int
	// RunsLost bounds, per label, how often such a run loses an
	// acknowledged message (results.LossBounds over the final reads).
	RunsLost map[string]results.Bound       `json:",omitempty"`
	Latency  map[string]results.Percentiles // over all runs
	Verdict  verdict
	Complete bool
	Start    time.Time
	// Consumer groups, by label: per run, the records lost in the consumer
	// and the events applied twice; -1 when the run did not tally it.
	Groups    []string
	Unapplied map[string][]int
	Twice     map[string][]int
	Expects   []evidence.ExpectationVerdict // each expectation over the runs
	// Why is, per run, the causes of its losses, duplicates, refusals and
	// unapplied records in a few words (explain's Short), "" for a run
	// with none: the index shows a change of cause between releases
	// without explaining any run again.
	Why []string `json:",omitempty"`
	// TxnVersion is the cluster's finalized transaction.version (KIP-890)
	// as the provenance recorded it, "" when it did not: the index flags
	// a runbook whose releases met different transaction protocols.
	TxnVersion string `json:",omitempty"`
}

// summarize makes the summary of r; exps are its runs' explanations, or
// nil to explain them here.
func summarize(r *results.Results, exps []explain.Explanation) runSummary {
	s := runSummary{Runbook: r.Runbook.Name, Sweep: r.Runbook.Sweep, Combination: r.Runbook.Combination, Kafka: r.Provenance.Kafka, Client: r.Provenance.Client, Backend: r.Provenance.Backend, Title: r.Title, Labels: r.Labels(), Lost: map[string][]int{}, Acked: map[string]int{},
		Unseen: map[string][]int{}, Snapshot: map[string][]bool{},
		Latency: map[string]results.Percentiles{}, Verdict: newVerdict(r), Complete: r.Complete, Start: r.Provenance.Start}
	for _, l := range s.Labels {
		s.Lost[l] = r.LostPerRun(l)
		for _, run := range r.Runs {
			t, ok := run.Tally(l)
			if ok {
				s.Acked[l] += t.Acked
			}
			snap := ok && !t.Final
			s.Snapshot[l] = append(s.Snapshot[l], snap)
			s.Unseen[l] = append(s.Unseen[l], len(t.Unseen))
		}
		s.Latency[l] = r.LatencyAll(l)
		if runs, _ := r.LossBounds(l); runs.N > 0 {
			if s.RunsLost == nil {
				s.RunsLost = map[string]results.Bound{}
			}
			s.RunsLost[l] = runs
		}
	}
	if v, ok := r.Provenance.TransactionVersion(); ok {
		s.TxnVersion = strconv.Itoa(int(v))
	}
	s.Expects = evidence.Expectations(r)
	if exps == nil {
		exps = explainRuns(r)
	}
	for _, e := range exps {
		s.Why = append(s.Why, e.Short)
	}
	s.Groups, s.Unapplied, s.Twice = groupLabels(r), map[string][]int{}, map[string][]int{}
	for _, g := range s.Groups {
		for _, run := range r.Runs {
			u, tw := -1, -1
			if c, ok := run.Consumer(g); ok && c.Tally != nil {
				u, tw = len(c.Tally.Unapplied), len(c.Tally.AppliedTwice)
			}
			s.Unapplied[g] = append(s.Unapplied[g], u)
			s.Twice[g] = append(s.Twice[g], tw)
		}
	}
	return s
}
