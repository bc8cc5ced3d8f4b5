package bisect

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/explain"
	"github.com/kafkabook/kafkabook/results"
)

// Judge turns a release's runs into its outcome. By default that is the
// runs' verdict; a finding that no expectation states (how a partition
// got its leader back) is judged from what explain reads in the brokers'
// lines instead, so that a bisect can find where the cluster's behaviour
// changed although no count did.
type Judge struct {
	expect    string // one of the runbook's expectations, as written
	elections string // a topic label
}

// NewJudge makes the judge of --expect EXPR or --elections TOPIC (at most
// one of them; neither judges every expectation) and checks, before
// anything runs, that the runbook has that expectation or topic: exprs
// are its expectations as written, topics the labels of its topics.
func NewJudge(expect, elections string, exprs, topics []string) (Judge, error) {
	j := Judge{expect: normSpace(expect), elections: elections}
	if expect != "" && elections != "" {
		return j, fmt.Errorf("give --expect or --elections, not both: a bisect follows one outcome")
	}
	switch {
	case j.expect != "" && !HasExpectation(exprs, expect):
		return j, fmt.Errorf("the runbook has no expectation %q: --expect takes one of its expect lines as written (%s)", expect, orNone(exprs))
	case elections != "" && !slices.Contains(topics, elections):
		return j, fmt.Errorf("the runbook has no topic %q: --elections takes a topic it creates or produces to (%s)", elections, orNone(topics))
	}
	return j, nil
}

// HasExpectation says whether exprs (a runbook's expectations as
// written) hold expr, spaces aside: if not, bisect --expect adds it.
func HasExpectation(exprs []string, expr string) bool {
	return slices.ContainsFunc(exprs, func(e string) bool { return normSpace(e) == normSpace(expr) })
}

// String says what the judge follows, for the bisect's record.
func (j Judge) String() string {
	switch {
	case j.expect != "":
		return "expect " + j.expect
	case j.elections != "":
		return "elections(" + j.elections + ")"
	}
	return "every expectation"
}

// Outcome judges the runs of one release.
//
// For expectations: "held" when they held in every run, "failed" when one
// failed in some run, "undecided" when a rate over the runs was neither
// (more runs would decide it: use --until-decided). A rate is judged over
// all the runs, so its verdict in the last run is the release's.
//
// For elections: explain.HowElected, the kinds of the topic's elections
// other than clean ones ("last-known-leader"), "clean" or "none".
func (j Judge) Outcome(runs []results.Run) Outcome {
	if j.elections != "" {
		return Outcome(explain.HowElected(runs, j.elections))
	}
	held, failed := true, false
	for i, r := range runs {
		for _, e := range r.Expectations {
			if j.expect != "" && normSpace(e.Expr) != j.expect {
				continue
			}
			// A rate is judged over every run so far: the last run's
			// verdict is the release's, the earlier ones were steps.
			if isRate(e.Expr) && i < len(runs)-1 {
				continue
			}
			switch {
			case e.Undecided:
				held = false
			case !e.Held:
				failed = true
			}
		}
		if j.expect == "" && !r.Complete {
			failed = true
		}
	}
	switch {
	case failed:
		return "failed"
	case !held:
		return "undecided"
	}
	return "held"
}

// isRate says whether an expectation as written is on a rate over runs:
// runs_lost(t) < 20% at 95%.
func isRate(expr string) bool {
	name, _, _ := strings.Cut(strings.TrimSpace(expr), "(")
	return results.FindRateMeasure(strings.TrimSpace(name)) != nil
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func orNone(ss []string) string {
	if len(ss) == 0 {
		return "it has none"
	}
	return strings.Join(ss, "; ")
}
