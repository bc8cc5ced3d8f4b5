// Package bisect finds the Kafka release where a runbook's outcome
// changed: given releases in order, the first one and the last of which
// differ, it probes as few of those in between as a binary search needs,
// as git bisect does with commits. Probing (running the runbook on a
// release, on a real cluster) is the caller's; the search is kept here,
// apart, so that its order can be tested without a cluster.
package bisect

import (
	"context"
	"fmt"
)

// Outcome is what a runbook's runs on one release came to: "held" when
// every expectation held in every run, "failed" otherwise (the caller may
// use finer outcomes: any two that differ count as a change).
type Outcome string

// Probe runs the runbook on one release and says its outcome.
type Probe func(ctx context.Context, release string) (Outcome, error)

// Step is one release probed, in the order probed.
type Step struct {
	Release string
	Outcome Outcome
}

// Result is a search's end: Before is the last release with the first
// release's outcome and After the first with another, next to each other
// in the list; Changed is false when the two ends agreed (and nothing
// between them was probed).
type Result struct {
	Changed       bool
	Before, After Step
	Steps         []Step
}

// Search probes releases[0] and the last release, then, if they differ,
// halves the releases between the last with the first's outcome and the
// first with another until they are neighbours. It assumes one change (an
// outcome that flips back and forth in between is found at one of its
// flips, not all of them).
func Search(ctx context.Context, releases []string, probe Probe) (Result, error) {
	var r Result
	if len(releases) < 2 {
		return r, fmt.Errorf("bisect needs two releases or more, got %d", len(releases))
	}
	at := func(i int) (Step, error) {
		o, err := probe(ctx, releases[i])
		if err != nil {
			return Step{}, fmt.Errorf("on %s: %w", releases[i], err)
		}
		s := Step{releases[i], o}
		r.Steps = append(r.Steps, s)
		return s, nil
	}
	lo, hi := 0, len(releases)-1
	first, err := at(lo)
	if err != nil {
		return r, err
	}
	last, err := at(hi)
	if err != nil {
		return r, err
	}
	if first.Outcome == last.Outcome {
		r.Before, r.After = first, last
		return r, nil
	}
	r.Changed = true
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		s, err := at(mid)
		if err != nil {
			return r, err
		}
		if s.Outcome == first.Outcome {
			lo, first = mid, s
		} else {
			hi, last = mid, s
		}
	}
	r.Before, r.After = first, last
	return r, nil
}
