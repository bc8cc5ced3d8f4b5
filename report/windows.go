package report

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// window is a span of a run during which some nodes were faulted: isolated
// (isolate → rejoin), paused (pause → resume), killed or stopped (→ start),
// partitioned (partition → heal; its "node" is the partition as written,
// "k1 | k2 k3"), lossy (loss N% → loss 0% or heal), narrow (link --rate R
// → link --rate 0 or heal) or without power (powerloss → start); the
// table is runbook.FaultKinds.
// Times are offsets from the run's start.
type window struct {
	Kind     string // "isolated", "paused", "killed", "stopped", "partitioned", "lossy", "lost power"
	Nodes    []string
	From, To time.Duration
	// Then is the release the nodes started on at the window's end, when
	// the step chose one (restart --to, roll --to).
	Then string
}

// Name is the window's label on a chart, e.g. "k2,k3 isolated", "k1
// stopped, then on 4.3.1".
func (w window) Name() string {
	s := strings.Join(w.Nodes, ",") + " " + w.Kind
	if w.Then != "" {
		s += ", then on " + w.Then
	}
	return s
}

// faultWindows pairs a run's faults into windows. A window still open when
// the run ended lasts until its end. Nodes faulted and healed together form
// one window.
func faultWindows(run results.Run) []window {
	type key struct{ node, kind string }
	open := map[key]time.Time{}
	type span struct {
		kind     string
		from, to time.Time
		then     string
	}
	spans := map[span][]string{}
	var order []span
	add := func(s span, node string) {
		if _, ok := spans[s]; !ok {
			order = append(order, s)
		}
		spans[s] = append(spans[s], node)
	}
	faults := append([]results.Fault(nil), run.Faults...)
	sort.SliceStable(faults, func(i, j int) bool { return faults[i].At.Before(faults[j].At) })
	closeAll := func(kinds []string, nodes []string, at time.Time, then string) {
		for _, kind := range kinds {
			for _, n := range nodes {
				if from, ok := open[key{n, kind}]; ok {
					add(span{kind, from, at, then}, n)
					delete(open, key{n, kind})
				}
			}
		}
	}
	for _, f := range faults {
		k, known := runbook.FaultKindOf(f.Op)
		var ends bool
		f.Nodes, ends = k.Read(f.Nodes) // loss 30%, link 10mbit/s: the nodes, then the argument
		switch f.Op {
		case "partition":
			f.Nodes = []string{strings.Join(f.Nodes, " ")}
		case "heal":
			healed := runbook.Closes("heal")
			for o := range open {
				if slices.Contains(healed, o.kind) {
					f.Nodes = append(f.Nodes, o.node)
				}
			}
			sort.Strings(f.Nodes)
		}
		switch {
		case ends: // loss 0%, link --rate 0
			closeAll([]string{k.Opens}, f.Nodes, f.At, "")
		case known && k.Opens != "":
			for _, n := range f.Nodes {
				if _, already := open[key{n, k.Opens}]; !already {
					open[key{n, k.Opens}] = f.At
				}
			}
		default:
			closeAll(runbook.Closes(f.Op), f.Nodes, f.At, f.Kafka)
		}
	}
	end := runEnd(run)
	var still []key
	for k := range open {
		still = append(still, k)
	}
	sort.Slice(still, func(i, j int) bool {
		if !open[still[i]].Equal(open[still[j]]) {
			return open[still[i]].Before(open[still[j]])
		}
		return still[i].node < still[j].node
	})
	for _, k := range still {
		add(span{k.kind, open[k], end, ""}, k.node)
	}
	out := make([]window, 0, len(order))
	for _, s := range order {
		nodes := spans[s]
		sort.Strings(nodes)
		out = append(out, window{Kind: s.kind, Nodes: nodes, From: since(run, s.from), To: since(run, s.to), Then: s.then})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].From < out[j].From })
	return out
}

// runEnd is the run's end, or for a run that never recorded one, the latest
// time anything in it happened.
func runEnd(run results.Run) time.Time {
	if !run.End.IsZero() {
		return run.End
	}
	end := run.Start
	later := func(t time.Time) {
		if t.After(end) {
			end = t
		}
	}
	for _, f := range run.Faults {
		later(f.At)
	}
	for _, s := range run.ISR {
		later(s.At)
	}
	for _, s := range run.Steps {
		later(s.End)
	}
	for _, t := range run.Topics {
		for _, m := range t.Messages {
			later(m.Acked)
			later(m.Intended)
		}
		for i := 0; i < t.Ledger.Len(); i++ {
			later(t.Ledger.Acked(i))
			later(t.Ledger.Intended(i))
		}
	}
	return end
}

// since is t as an offset from the run's start, never negative.
func since(run results.Run, t time.Time) time.Duration {
	d := t.Sub(run.Start)
	if d < 0 || t.IsZero() {
		return 0
	}
	return d
}
