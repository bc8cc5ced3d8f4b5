package explain

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// The tests read trimmed copies of published runs, never output/ itself.
// `go test -run TestTestdata -from ../../output` makes them again from a
// site: the runs below, each cut down to what this package reads, and one
// real line per release and kind for the pattern table.
var from = flag.String("from", "", "a published site (output/) to rebuild testdata from")

// testRuns are the published runs the golden tests explain: name → the
// run's directory under output/.
var testRuns = map[string]string{
	"power-loss-4.0.0":    "power-loss/kafka-4.0.0/20261130T081022Z",
	"power-loss-4.1.0":    "power-loss/kafka-4.1.0/20261130T083432Z",
	"power-loss-4.3.1":    "power-loss/kafka-4.3.1/20261130T084840Z",
	"power-loss-4.4.0":    "power-loss/kafka-4.4.0/20261130T084233Z",
	"producer-acks-4.1.0": "producer-acks/kafka-4.1.0/20261130T083602Z",
	"producer-acks-4.4.0": "producer-acks/kafka-4.4.0/20261130T084404Z",
	"min-insync-4.4.0":    "min-insync/kafka-4.4.0/20261130T084149Z",
	"idempotence-4.4.0":   "producer-idempotence/kafka-4.4.0/20261130T084448Z",
	"consumer-4.4.0":      "consumer-commits/kafka-4.4.0/20261130T083900Z",
	"zombie-leader-4.1.2": "zombie-leader/kafka-4.1.2/20261130T085312Z",
	"rolling-upgrade-isr": "rolling-upgrade.wait-isr/kafka-4.2.2/20261205T214359Z",
	"broker-replacement":  "broker-replacement/kafka-4.3.1/20261206T012413Z",
	"corrupt-segment":     "corrupt-segment/kafka-4.3.1/20261206T075505Z",
	"clock-jump":          "clock-jump/kafka-4.3.1/20261206T080131Z",
	"disk-failure":        "disk-failure/kafka-4.3.1/20261206T080520Z",
}

func TestTestdata(t *testing.T) {
	if *from == "" {
		t.Skip("rebuilds testdata only with -from")
	}
	for name, dir := range testRuns {
		r, err := results.Load(filepath.Join(*from, dir))
		if err != nil {
			t.Fatal(err)
		}
		for i := range r.Runs {
			r.Runs[i] = trim(r.Runs[i])
		}
		r.Title, r.Provenance.Broker, r.Provenance.Params = "", nil, nil
		if err := writeRun(filepath.Join("testdata", name+".json.gz"), r); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeLineTable(*from, filepath.Join("testdata", "lines.txt")); err != nil {
		t.Fatal(err)
	}
}

// trim keeps of a run what Run reads: the ledger entries of its findings,
// the final tallies, the faults, the ISR samples of the topics with
// findings, the lines Parse recognises (not the noise), the `logs` steps
// and the consumer events of unapplied records and commits.
func trim(run results.Run) results.Run {
	keep := map[string]map[string]bool{} // label → ids
	for _, tl := range run.Final {
		ids := map[string]bool{}
		for _, id := range tl.LostIDs() {
			ids[id] = true
		}
		for _, id := range tl.DuplicateIDs() {
			ids[id] = true
		}
		keep[tl.Label] = ids
	}
	var topics []results.Topic
	for _, tp := range run.Topics {
		var msgs []results.Message
		for _, m := range tp.All() {
			ner := m.Status == results.StatusFailed && strings.HasPrefix(m.Error, "NOT_ENOUGH_REPLICAS")
			if keep[tp.Label][m.ID] || ner {
				msgs = append(msgs, m)
			}
		}
		if len(msgs) > 0 {
			keep[tp.Label]["*"] = true
		}
		topics = append(topics, results.Topic{Name: tp.Name, Label: tp.Label, Messages: msgs})
	}
	var isr []results.ISRSample
	for _, s := range run.ISR {
		if keep[s.Topic]["*"] {
			isr = append(isr, s)
		}
	}
	var logs []results.LogLine
	for _, l := range run.Logs {
		if e, ok := Parse(l); ok && e.Kind != Noise {
			logs = append(logs, l)
		}
	}
	var steps []results.StepOutput
	for _, s := range run.Steps {
		if strings.HasPrefix(s.Text, "logs ") {
			steps = append(steps, results.StepOutput{Pos: s.Pos, Text: s.Text, Start: s.Start, End: s.End, Output: s.Output, Error: s.Error})
		}
	}
	var groups []results.Consumer
	for _, g := range run.Consumers {
		groups = append(groups, trimConsumer(g))
	}
	return results.Run{Number: run.Number, Start: run.Start, End: run.End, Complete: run.Complete, Topics: topics,
		Final: run.Final, Faults: run.Faults, ISR: isr, Logs: logs, Steps: steps, Consumers: groups}
}

func trimConsumer(g results.Consumer) results.Consumer {
	out := results.Consumer{Group: g.Group, Label: g.Label, Topic: g.Topic, Commit: g.Commit, Members: g.Members}
	if g.Tally == nil {
		return out
	}
	out.Tally = &results.ConsumerTally{Unapplied: g.Tally.Unapplied}
	want := map[string]bool{}
	for _, id := range g.Tally.Unapplied {
		want[id] = true
	}
	for _, e := range g.Events {
		if e.Kind == results.EventCommit || e.Kind == results.EventDeliver && want[e.ID] {
			out.Events = append(out.Events, e)
		}
	}
	return out
}

func writeRun(path string, r *results.Results) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	enc := json.NewEncoder(zw)
	enc.SetIndent("", " ")
	err = enc.Encode(r)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readRun reads a trimmed run written by TestTestdata.
func readRun(t *testing.T, name string) *results.Results {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".json.gz"))
	if err != nil {
		t.Fatalf("%v (rebuild testdata with -from output/)", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var r results.Results
	if err := json.NewDecoder(zr).Decode(&r); err != nil {
		t.Fatalf("testdata/%s.json.gz: %v", name, err)
	}
	return &r
}

// writeLineTable writes the first line of each kind in each release's
// published runs: "release<TAB>kind<TAB>node<TAB>time<TAB>text".
func writeLineTable(site, path string) error {
	dirs, err := filepath.Glob(filepath.Join(site, "*", "kafka-*", "2*"))
	if err != nil {
		return err
	}
	sort.Strings(dirs)
	type key struct{ release, kind string }
	first := map[key]results.LogLine{}
	for _, dir := range dirs {
		release := strings.TrimPrefix(filepath.Base(filepath.Dir(dir)), "kafka-")
		r, err := results.Load(dir)
		if err != nil {
			return err
		}
		for _, run := range r.Runs {
			for _, l := range Lines(run) {
				e, ok := Parse(l)
				if !ok {
					continue
				}
				k := key{release, string(e.Kind)}
				if _, seen := first[k]; !seen {
					first[k] = l
				}
			}
		}
	}
	var rows []string
	for k, l := range first {
		rows = append(rows, strings.Join([]string{k.release, k.kind, l.Node, l.At.Format(time.RFC3339Nano), l.Text}, "\t"))
	}
	sort.Strings(rows)
	return os.WriteFile(path, []byte(strings.Join(rows, "\n")+"\n"), 0o644)
}

// lineRow is one row of testdata/lines.txt.
type lineRow struct {
	release string
	kind    Kind
	line    results.LogLine
}

func readLineTable(t *testing.T) []lineRow {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "lines.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []lineRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		p := strings.SplitN(sc.Text(), "\t", 5)
		if len(p) != 5 {
			t.Fatalf("testdata/lines.txt:%d: want 5 fields, have %d", n, len(p))
		}
		at, err := time.Parse(time.RFC3339Nano, p[3])
		if err != nil {
			t.Fatalf("testdata/lines.txt:%d: %v", n, err)
		}
		rows = append(rows, lineRow{p[0], Kind(p[1]), results.LogLine{At: at, Node: p[2], Text: p[4]}})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// render prints an explanation for a golden file: every finding, every
// statement and every line it rests on.
func render(r *results.Results) string {
	var b strings.Builder
	for _, run := range r.Runs {
		x := Run(run)
		fmt.Fprintf(&b, "run %d: %d findings\ncause: %s\nshort: %s\n", run.Number, len(x.Findings), x.Cause, x.Short)
		for _, f := range x.Findings {
			fmt.Fprintf(&b, "\n  %s %s partition %d %s (%d)\n  cause: %s (visible %v)\n", f.Kind, f.Topic, f.Partition, f.Range, f.Count, f.Cause, f.Visible)
			for _, s := range f.Steps {
				fmt.Fprintf(&b, "  - %s\n", s.Text)
				for _, l := range s.Lines {
					fmt.Fprintf(&b, "      %s %s\n", l.Node, l.Text)
				}
			}
		}
		for _, l := range x.Unrecognised {
			fmt.Fprintf(&b, "  unrecognised: %s %s\n", l.Node, l.Text)
		}
		b.WriteString("\n")
	}
	return b.String()
}
