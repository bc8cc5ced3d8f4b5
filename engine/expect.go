package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// expect: expect EXPR — checked now, recorded, never fatal: a failed
// expectation fails the run's verdict, not the run.
func expect(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	e := s.Expr
	got, shown, err := r.value(e)
	if err != nil {
		return err
	}
	held := e.Holds(got)
	r.ev.Emit(results.KindExpect, r.num, results.Expectation{Pos: s.Pos.String(), Expr: e.String(), Actual: shown, Held: held})
	verdict := "held"
	if !held {
		verdict = "FAILED"
	}
	log.line("%s: %s is %s — %s", e, e.Func+"("+e.Topic+")", shown, verdict)
	return nil
}

// value computes the left side of an expectation: counts, or latencies in
// nanoseconds.
func (r *runner) value(e *runbook.Expr) (int64, string, error) {
	count := func(n int) (int64, string, error) { return int64(n), fmt.Sprint(n), nil }
	r.mu.Lock()
	tally, read := r.tallies[e.Topic]
	r.mu.Unlock()
	needRead := func() error {
		if !read {
			return fmt.Errorf("%s needs a read of %s first", e.Func, e.Topic)
		}
		return nil
	}
	switch e.Func {
	case "lost":
		if err := needRead(); err != nil {
			return 0, "", err
		}
		return count(len(tally.Lost))
	case "duplicates":
		if err := needRead(); err != nil {
			return 0, "", err
		}
		return count(len(tally.Duplicates))
	case "present":
		if err := needRead(); err != nil {
			return 0, "", err
		}
		return count(tally.Present)
	case "acked":
		n := 0
		for _, m := range r.ledger(e.Topic).Messages {
			if m.Status == results.StatusOK {
				n++
			}
		}
		return count(n)
	case "p50", "p99", "max":
		p := results.Latency(r.ledger(e.Topic).Messages)
		d := map[string]time.Duration{"p50": p.P50, "p99": p.P99, "max": p.Max}[e.Func]
		return int64(d), d.Round(time.Millisecond).String(), nil
	}
	return 0, "", fmt.Errorf("unknown function %s", e.Func)
}
