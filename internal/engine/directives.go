package engine

import (
	"context"

	"github.com/kafkabook/kafkabook/runbook"
)

// stepFunc performs one step. It prints through log; an error ends the run.
type stepFunc func(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error

// binder hands a step's Action to its runner: it returns the step function
// when the action is of the type the runner takes, else nil.
type binder func(a runbook.Action) stepFunc

// typed makes the binder of a runner that takes the concrete Action type
// A, so that a runner reads typed fields and never a flag by name.
func typed[A runbook.Action](run func(ctx context.Context, r *runner, s runbook.Step, a A, log *stepLog) error) binder {
	return func(a runbook.Action) stepFunc {
		t, ok := a.(A)
		if !ok {
			return nil
		}
		return func(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
			return run(ctx, r, s, t, log)
		}
	}
}

// runners holds the runner of every directive, by the Op the parser
// resolved. The syntax, usage, defaults, checks and the typed
// Action live in runbook.Directives; a test checks that every Op has a
// runner that takes its Action.
var runners = map[runbook.Op]binder{
	runbook.OpTopicCreate:    typed(topicCreate),
	runbook.OpProduce:        typed(produce),
	runbook.OpISR:            typed(isr),
	runbook.OpRead:           typed(read),
	runbook.OpLogs:           typed(logs),
	runbook.OpWaitLeader:     typed(waitLeader),
	runbook.OpWaitISR:        typed(waitISR),
	runbook.OpWaitProducers:  typed(waitProducers),
	runbook.OpWaitHealthy:    typed(waitHealthy),
	runbook.OpKill:           onNemesis(fault),
	runbook.OpStop:           onNemesis(fault),
	runbook.OpStart:          onNemesis(fault),
	runbook.OpPause:          onNemesis(fault),
	runbook.OpResume:         onNemesis(fault),
	runbook.OpIsolate:        onNemesis(fault),
	runbook.OpRejoin:         onNemesis(fault),
	runbook.OpRestart:        onNemesis(fault),
	runbook.OpSleep:          typed(sleep),
	runbook.OpExpect:         typed(expect),
	runbook.OpPartition:      onNemesis(partition),
	runbook.OpHeal:           onNemesis(heal),
	runbook.OpLoss:           onNemesis(loss),
	runbook.OpConsume:        typed(consume),
	runbook.OpCrashConsumer:  typed(crashConsumer),
	runbook.OpStartConsumer:  typed(startConsumer),
	runbook.OpStopConsumer:   typed(stopConsumer),
	runbook.OpWaitConsumer:   typed(waitConsumer),
	runbook.OpOffsets:        typed(offsets),
	runbook.OpPowerloss:      onNemesis(powerloss),
	runbook.OpTransform:      typed(transform),
	runbook.OpPauseConsumer:  typed(pauseConsumer),
	runbook.OpResumeConsumer: typed(resumeConsumer),
	runbook.OpPauseProducer:  typed(pauseProducer),
	runbook.OpResumeProducer: typed(resumeProducer),
}
