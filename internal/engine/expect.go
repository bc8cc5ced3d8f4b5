package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// checker holds the run's expectations and judges them once the final
// read is in. It judges the run's stored history (what events.jsonl holds,
// as results.EventWriter.Run folds it), not the engine's memory, so that
// a re-check of the file cannot come to another verdict.
type checker struct {
	mu      sync.Mutex
	expects []expectation // in the order written
}

var _ = handles(expect, runbook.OpExpect)

// expect: expect EXPR. An expectation speaks of the run's outcome, and
// lost() is only a proof after the final read on the healed cluster; so
// every expectation is checked then, in the order written, and recorded.
// A failed expectation fails the run's verdict, not the run.
func expect(ctx context.Context, c *checker, s runbook.Step, e runbook.Expect, log *stepLog) error {
	c.mu.Lock()
	c.expects = append(c.expects, expectation{s, e.Expr})
	c.mu.Unlock()
	log.line("checked after the final read")
	return nil
}

// expectation is an expect step, kept until the final read.
type expectation struct {
	step runbook.Step
	expr *runbook.Expr
}

// check checks the run's expectations against its evidence as written so
// far (the workload flushed first), records each verdict and prints it.
func (c *checker) check(env *env) error {
	run := env.ev.Run(env.num)
	c.mu.Lock()
	expects := slices.Clone(c.expects)
	c.mu.Unlock()
	if len(expects) > 0 {
		env.con.printf("--- expectations ---\n")
	}
	for _, x := range expects {
		s, e := x.step, x.expr
		if e.IsRate() {
			c.checkRate(env, s, e)
			continue
		}
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
		env.ev.Emit(results.KindExpect, env.num, results.Expectation{Pos: s.Pos.String(), Expr: e.String(), Actual: shown, Held: held})
		verdict := "held"
		if !held {
			verdict = "FAILED"
		}
		env.con.printf("  line %d: %s: %s(%s) is %s — %s\n", s.Pos.Line, e, e.Func, e.Topic, shown, verdict)
	}
	return env.evidenceErr()
}

// checkRate judges an expectation on a rate over every run so far
// (runs_lost(t) < 5% at 95%): held or failed once the rate's bound at the
// expectation's confidence decides it, undecided while it straddles the
// value, which more runs (run --until-decided) may decide.
func (c *checker) checkRate(env *env, s runbook.Step, e *runbook.Expr) {
	m := results.FindRateMeasure(e.Func)
	runs := make([]results.Run, 0, env.num)
	for n := 1; n <= env.num; n++ {
		runs = append(runs, env.ev.Run(n))
	}
	k, n := m.Count(runs, e.Topic)
	b := results.BoundAt(k, n, e.Confidence)
	held, decided := b.Decide(e.Op, e.Rate)
	shown := b.Words(m.Trials, m.Event)
	env.ev.Emit(results.KindExpect, env.num, results.Expectation{Pos: s.Pos.String(), Expr: e.String(), Actual: shown, Held: held && decided, Undecided: !decided})
	verdict := "held"
	switch {
	case !decided:
		verdict = fmt.Sprintf("undecided after %d runs (kafkabook run --until-decided runs until it is decided)", env.num)
	case !held:
		verdict = "FAILED"
	}
	env.con.printf("  line %d: %s: %s — %s\n", s.Pos.Line, e, shown, verdict)
}
