package explain

import (
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// stepLine is a line a `logs` step printed: "k1: [2026-11-30T08:35:20.028Z]
// INFO Setting new leader …". The engine's capture filter keeps no
// election lines, so the controllers' "using an unclean election" lines
// reach the evidence only this way, when a runbook asks for them.
var stepLine = regexp.MustCompile(`^(k\d+): (\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\] .*)$`)

// Lines returns every broker log line of a run, the captured ones
// (Run.Logs) and those `logs` steps printed, once each, in time order.
func Lines(run results.Run) []results.LogLine {
	seen := map[[2]string]bool{}
	var out []results.LogLine
	add := func(l results.LogLine) {
		k := [2]string{l.Node, l.Text}
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	for _, l := range run.Logs {
		add(l)
	}
	for _, s := range run.Steps {
		if !strings.HasPrefix(s.Text, "logs ") {
			continue
		}
		for _, o := range s.Output {
			m := stepLine.FindStringSubmatch(o)
			if m == nil {
				continue
			}
			at, err := time.Parse("2006-01-02T15:04:05.000Z", m[3])
			if err != nil {
				continue
			}
			add(results.LogLine{At: at, Node: m[1], Text: m[2]})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// Events parses a run's lines (see Lines). An election line names its
// partition by topic id; Events resolves it to the partition's name from
// the other lines that pair the two.
func Events(run results.Run) []Event {
	var out []Event
	names := map[string]string{} // topic id → topic name
	for _, l := range Lines(run) {
		e, ok := Parse(l)
		if !ok {
			continue
		}
		if e.TopicID != "" && e.Partition != "" {
			if i := strings.LastIndexByte(e.Partition, '-'); i > 0 {
				names[e.TopicID] = e.Partition[:i]
			}
		}
		out = append(out, e)
	}
	for i, e := range out {
		if e.Kind == Election && e.Partition == "" {
			if t, ok := names[e.TopicID]; ok {
				out[i].Partition = t + "-" + itoa(int64(e.Index))
			}
		}
	}
	return out
}

// UnrecognisedLines are the lines of a run that look relevant and match no
// pattern: shown, never dropped.
func UnrecognisedLines(evs []Event) []results.LogLine {
	var out []results.LogLine
	for _, e := range evs {
		if e.Kind == Unrecognised {
			out = append(out, e.Line)
		}
	}
	return out
}

// node is the name kafkabook gives broker id n: k1, k2, ...
func node(n int32) string { return "k" + itoa(int64(n)) }
