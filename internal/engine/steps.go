package engine

import (
	"context"
	"fmt"

	"github.com/kafkabook/kafkabook/runbook"
)

// A directive's step function is registered in its own file, next to its
// code, by the Op the parser resolved:
//
//	var _ = handles(link, runbook.OpLink)
//
// so that a new directive costs its runbook file, the registry's line and
// the step function's file. The syntax, usage, defaults, checks and the
// typed Action live in runbook.Directives; TestEveryDirectiveRuns checks
// that every Op has a step function that takes its Action.

// stepFunc performs one step with the part of the run it is given. It
// prints through log; an error ends the run.
type stepFunc func(ctx context.Context, ps partSource, s runbook.Step, log *stepLog) error

// binder hands a step's Action to its step function: it returns the
// stepFunc when the action is of the type the function takes, else nil.
type binder func(a runbook.Action) stepFunc

// partSource hands a step function its part of the run: part sets *ptr (a
// **workload, **nemesis, ...) to the run's part of that type and reports
// whether the run has one. The runner implements it: a part knows nothing
// of the runner that hands it its steps (TestParts).
type partSource interface {
	part(ptr any) bool
}

// handlers holds the binder of every directive's step function by Op.
var handlers = map[runbook.Op]binder{}

// handles registers run as the step function of ops. run's first argument
// is the part of the run it is given (*workload, *nemesis, *observation,
// *checker, *backgrounds, or struct{} for none); it reads the typed Action
// A, never a flag by name. A second registration of an op panics at start.
func handles[P any, A runbook.Action](run func(ctx context.Context, p P, s runbook.Step, a A, log *stepLog) error, ops ...runbook.Op) struct{} {
	for _, op := range ops {
		if handlers[op] != nil {
			panic(fmt.Sprintf("engine: directive %q has two step functions", op))
		}
		handlers[op] = func(a runbook.Action) stepFunc {
			t, ok := a.(A)
			if !ok {
				return nil
			}
			return func(ctx context.Context, ps partSource, s runbook.Step, log *stepLog) error {
				var p P
				if !ps.part(&p) {
					return fmt.Errorf("the run has no part %T for %q", p, op)
				}
				return run(ctx, p, s, t, log)
			}
		}
	}
	return struct{}{}
}
