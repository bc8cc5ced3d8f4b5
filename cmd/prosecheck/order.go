package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// An order claim says that one thing happened before another in so many
// runs: runs(effect(autoho: m-001) < commit(autoho))=10. The things are
// what a run's evidence timestamps:
//
//	fault(kill k1)          the first fault of that op (on that node)
//	log(k1: Shrinking ISR)  the first line k1 logged holding the text
//	commit(G)               group G's first commit (commit(G: 10): of offset 10)
//	effect(G: m-004)        the effect of m-004 in group G's store
//	deliver(G: m-004)       m-004 handed to a member of group G
//	isr(T: [1])             partition 0 of topic T with the ISR [1]
//	leader(T: 2)            partition 0 of topic T led by node 2 (-1: none)
//	ack(T: m-010)           m-010 of topic T acknowledged (its outcome came)
//
// A run in which either did not happen does not count.

var (
	orderRe = regexp.MustCompile(`^runs\(\s*([a-z]+\(.+?\))\s*<\s*([a-z]+\(.+\))\s*\)$`)
	eventRe = regexp.MustCompile(`^([a-z]+)\(\s*([^:()]+?)\s*(?::\s*(.+?))?\s*\)$`)
)

// event is one thing of a run an order claim names.
type event struct {
	Kind string // fault, log, commit, effect, deliver, isr, leader, ack
	Name string // the fault's op, the node, the group's or topic's label
	Arg  string // the fault's node, the text, the offset, the message id, the ISR or the leader; "": any
}

func (e event) String() string {
	if e.Arg == "" {
		return e.Kind + "(" + e.Name + ")"
	}
	if e.Kind == "fault" {
		return "fault(" + e.Name + " " + e.Arg + ")"
	}
	return e.Kind + "(" + e.Name + ": " + e.Arg + ")"
}

// parseEvent reads one thing of an order claim.
func parseEvent(s string) (event, error) {
	g := eventRe.FindStringSubmatch(s)
	if g == nil {
		return event{}, fmt.Errorf("cannot read %q: name a fault(kill k1), log(k1: text), commit(G), effect(G: m-001), deliver(G: m-001), isr(T: [1]) or leader(T: 2)", s)
	}
	e := event{Kind: g[1], Name: g[2], Arg: g[3]}
	switch e.Kind {
	case "fault":
		if op, node, ok := strings.Cut(e.Name, " "); ok && e.Arg == "" {
			e.Name, e.Arg = op, strings.TrimSpace(node)
		}
	case "log":
		if e.Arg == "" {
			return e, fmt.Errorf("%s: say which line, as log(k1: Shrinking ISR)", s)
		}
	case "commit":
		if _, err := strconv.ParseInt(e.Arg, 10, 64); e.Arg != "" && err != nil {
			return e, fmt.Errorf("%s: a commit names its offset, as commit(G: 10)", s)
		}
	case "effect", "deliver":
		if e.Arg == "" {
			return e, fmt.Errorf("%s: say which message, as %s(G: m-001)", s, e.Kind)
		}
	case "ack":
		if e.Arg == "" {
			return e, fmt.Errorf("%s: say which message, as ack(T: m-010)", s)
		}
	case "isr":
		if !strings.HasPrefix(e.Arg, "[") {
			return e, fmt.Errorf("%s: say which ISR, as isr(T: [1])", s)
		}
		e.Arg = normISR(e.Arg)
	case "leader":
		if _, err := strconv.Atoi(e.Arg); err != nil {
			return e, fmt.Errorf("%s: say which node leads, as leader(T: 2)", s)
		}
	default:
		return e, fmt.Errorf("cannot read %q: name a fault, log, commit, effect, deliver, isr, leader or ack", s)
	}
	return e, nil
}

// when is the first time the event happened in the run, and false when it
// did not.
func (e event) when(r results.Run) (time.Time, bool) {
	return e.whenAfter(r, time.Time{})
}

// whenAfter is the first time at or after t that the event happened.
func (e event) whenAfter(r results.Run, t time.Time) (time.Time, bool) {
	var at []time.Time
	for _, x := range e.times(r) {
		if !x.Before(t) {
			at = append(at, x)
		}
	}
	if len(at) == 0 {
		return time.Time{}, false
	}
	return slices.MinFunc(at, func(a, b time.Time) int { return a.Compare(b) }), true
}

// times are all the times the event happened in the run.
func (e event) times(r results.Run) []time.Time {
	var at []time.Time
	switch e.Kind {
	case "ack":
		for _, t := range r.Topics {
			if t.Label != e.Name {
				continue
			}
			for _, m := range t.All() {
				if m.ID == e.Arg && !m.Acked.IsZero() {
					at = append(at, m.Acked)
				}
			}
		}
	case "isr", "leader":
		for _, s := range r.ISR {
			if s.Topic == e.Name && s.Partition == 0 && (e.Kind == "isr" && formatISR(s.ISR) == e.Arg || e.Kind == "leader" && strconv.Itoa(int(s.Leader)) == e.Arg) {
				at = append(at, s.At)
			}
		}
	case "fault":
		for _, f := range r.Faults {
			if f.Op == e.Name && (e.Arg == "" || slices.Contains(f.Nodes, e.Arg)) {
				at = append(at, f.At)
			}
		}
	case "log":
		for _, l := range r.Logs {
			if l.Node == e.Name && strings.Contains(l.Text, e.Arg) {
				at = append(at, l.At)
			}
		}
	default:
		c, ok := r.Consumer(e.Name)
		if !ok {
			return nil
		}
		kind := map[string]string{"commit": results.EventCommit, "effect": results.EventEffect, "deliver": results.EventDeliver}[e.Kind]
		for _, x := range c.Events {
			if x.Kind != kind {
				continue
			}
			if (e.Kind == "commit" && (e.Arg == "" || strconv.FormatInt(x.Offset, 10) == e.Arg)) || (e.Kind != "commit" && x.ID == e.Arg) {
				at = append(at, x.At)
			}
		}
	}
	return at
}
