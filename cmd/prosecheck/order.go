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
//
// A run in which either did not happen does not count.

var (
	orderRe = regexp.MustCompile(`^runs\(\s*([a-z]+\(.+?\))\s*<\s*([a-z]+\(.+\))\s*\)$`)
	eventRe = regexp.MustCompile(`^([a-z]+)\(\s*([^:()]+?)\s*(?::\s*(.+?))?\s*\)$`)
)

// event is one thing of a run an order claim names.
type event struct {
	Kind string // fault, log, commit, effect, deliver
	Name string // the fault's op, the node, or the group's label
	Arg  string // the fault's node, the text, the offset or the message id; "": any
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
		return event{}, fmt.Errorf("cannot read %q: name a fault(kill k1), log(k1: text), commit(G), effect(G: m-001) or deliver(G: m-001)", s)
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
	default:
		return e, fmt.Errorf("cannot read %q: name a fault, log, commit, effect or deliver", s)
	}
	return e, nil
}

// when is the first time the event happened in the run, and false when it
// did not.
func (e event) when(r results.Run) (time.Time, bool) {
	var at []time.Time
	switch e.Kind {
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
			return time.Time{}, false
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
	if len(at) == 0 {
		return time.Time{}, false
	}
	return slices.MinFunc(at, func(a, b time.Time) int { return a.Compare(b) }), true
}
