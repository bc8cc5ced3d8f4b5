package report

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// window is a span of a run during which some nodes were faulted: isolated
// (isolate → rejoin), paused (pause → resume), killed or stopped (→ start),
// partitioned (partition → heal; its "node" is the partition as written,
// "k1 | k2 k3"), lossy (loss N% → loss 0% or heal), narrow (link --rate R
// → link --rate 0 or heal) or without power (powerloss → start); the
// table is results.FaultKinds.
// Times are offsets from the run's start.
type window struct {
	Kind     string // "isolated", "paused", "killed", "stopped", "partitioned", "lossy", "lost power"
	Nodes    []string
	From, To time.Duration
}

// Name is the window's label on a chart, e.g. "k2,k3 isolated".
func (w window) Name() string { return strings.Join(w.Nodes, ",") + " " + w.Kind }

// faultWindows pairs a run's faults into windows. A window still open when
// the run ended lasts until its end. Nodes faulted and healed together form
// one window.
func faultWindows(run results.Run) []window {
	type key struct{ node, kind string }
	open := map[key]time.Time{}
	type span struct {
		kind     string
		from, to time.Time
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
	for _, f := range faults {
		switch f.Op {
		case "partition":
			f.Nodes = []string{strings.Join(f.Nodes, " ")}
		case "loss":
			if len(f.Nodes) == 2 && f.Nodes[1] == "0%" {
				f.Op = results.LossEnd
			}
			f.Nodes = f.Nodes[:min(len(f.Nodes), 1)]
		case "link": // the nodes, then the rate
			if len(f.Nodes) > 0 {
				if f.Nodes[len(f.Nodes)-1] == "0" {
					f.Op = results.LinkEnd
				}
				f.Nodes = f.Nodes[:len(f.Nodes)-1]
			}
		case "heal":
			healed := results.Closes("heal")
			for k := range open {
				if slices.Contains(healed, k.kind) {
					f.Nodes = append(f.Nodes, k.node)
				}
			}
			sort.Strings(f.Nodes)
		}
		if k, ok := results.FaultKindOf(f.Op); ok && k.Opens != "" {
			kind := k.Opens
			for _, n := range f.Nodes {
				if _, already := open[key{n, kind}]; !already {
					open[key{n, kind}] = f.At
				}
			}
			continue
		}
		for _, kind := range results.Closes(f.Op) {
			for _, n := range f.Nodes {
				if from, ok := open[key{n, kind}]; ok {
					add(span{kind, from, f.At}, n)
					delete(open, key{n, kind})
				}
			}
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
		add(span{k.kind, open[k], end}, k.node)
	}
	out := make([]window, 0, len(order))
	for _, s := range order {
		nodes := spans[s]
		sort.Strings(nodes)
		out = append(out, window{Kind: s.kind, Nodes: nodes, From: since(run, s.from), To: since(run, s.to)})
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
