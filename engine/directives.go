package engine

import (
	"context"

	"github.com/kafkabook/kafkabook/runbook"
)

// runFunc performs one step. It prints through log; an error ends the run.
type runFunc func(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error

// directives maps every name of runbook.Directives to its runner. The
// syntax, usage and checks live in package runbook; a test keeps the two
// lists equal.
var directives = map[string]runFunc{
	"topic create":   topicCreate,
	"produce":        produce,
	"isr":            isr,
	"read":           read,
	"logs":           logs,
	"wait leader":    waitLeader,
	"wait isr":       waitISR,
	"wait producers": waitProducers,
	"wait healthy":   waitHealthy,
	"kill":           fault,
	"stop":           fault,
	"start":          fault,
	"pause":          fault,
	"resume":         fault,
	"isolate":        fault,
	"rejoin":         fault,
	"sleep":          sleep,
	"expect":         expect,
}
