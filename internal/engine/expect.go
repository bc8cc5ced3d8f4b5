package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// expect: expect EXPR. An expectation speaks of the run's outcome, and
// lost() is only a proof after the final read on the healed cluster; so
// every expectation is checked then, in the order written, and recorded.
// A failed expectation fails the run's verdict, not the run.
func expect(ctx context.Context, r *runner, s runbook.Step, e runbook.Expect, log *stepLog) error {
	r.mu.Lock()
	r.expects = append(r.expects, expectation{s, e.Expr})
	r.mu.Unlock()
	log.line("checked after the final read")
	return nil
}

// expectation is an expect step, kept until the final read.
type expectation struct {
	step runbook.Step
	expr *runbook.Expr
}

// checkExpectations checks the run's expectations against its evidence.
func (r *runner) checkExpectations() error {
	run := r.evidence()
	if len(r.expects) > 0 {
		r.con.printf("--- expectations ---\n")
	}
	for _, x := range r.expects {
		s, e := x.step, x.expr
		m := results.FindMeasure(e.Func)
		if m == nil {
			return fmt.Errorf("%s: unknown function %s", s.Pos, e.Func) // runbook.Load rejects it first
		}
		var held bool
		var shown string
		if e.Set != nil {
			ids, ok := m.IDs(run, e.Topic)
			if !ok {
				return fmt.Errorf("%s: %s: %s(%s) has nothing to list: no read of the topic, or no tally of the group", s.Pos, s.Text, e.Func, e.Topic)
			}
			held, shown = e.HoldsSet(ids), results.FormatIDSet(ids)
		} else {
			got, ok := m.Of(run, e.Topic)
			if !ok {
				if m.Group {
					return fmt.Errorf("%s: %s: group %s has no tally", s.Pos, s.Text, e.Topic)
				}
				return fmt.Errorf("%s: %s: %s(%s) needs a read of %s, and the run has none", s.Pos, s.Text, e.Func, e.Topic, e.Topic)
			}
			held, shown = e.Holds(got), m.Show(got)
		}
		r.ev.Emit(results.KindExpect, r.num, results.Expectation{Pos: s.Pos.String(), Expr: e.String(), Actual: shown, Held: held})
		verdict := "held"
		if !held {
			verdict = "FAILED"
		}
		r.con.printf("  line %d: %s: %s(%s) is %s — %s\n", s.Pos.Line, e, e.Func, e.Topic, shown, verdict)
	}
	return r.evidenceErr()
}

// evidence is the run so far as the results model sees it: ledgers and
// transactions, the reads' tallies and the final tallies.
func (r *runner) evidence() results.Run {
	var run results.Run
	for _, label := range r.order {
		run.Topics = append(run.Topics, r.ledger(label))
		run.Transactions = append(run.Transactions, r.topic(label).transactions()...)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, label := range r.order {
		for _, s := range r.snapshots[label] {
			run.Tallies = append(run.Tallies, s.t)
		}
		if t, ok := r.finals[label]; ok {
			run.Final = append(run.Final, t)
		}
	}
	slices.SortStableFunc(run.Tallies, func(a, b results.Tally) int { return a.At.Compare(b.At) })
	for _, label := range r.groupOrder {
		if g := r.groups[label]; g.tally != nil {
			run.Consumers = append(run.Consumers, results.Consumer{Label: label, Group: g.name, Tally: g.tally})
		}
	}
	return run
}
