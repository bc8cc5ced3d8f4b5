package engine

import (
	"context"

	"github.com/kafkabook/kafkabook/runbook"
)

// stepFunc performs one step. It prints through log; an error ends the run.
type stepFunc func(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error

// binder hands a step's Action to its step function: it returns the
// stepFunc when the action is of the type the function takes, else nil.
type binder func(a runbook.Action) stepFunc

// on makes the binder of a step function of one part of the run (part
// picks it out of the runner) that takes the concrete Action type A: a
// step function sees only its part, and reads typed fields, never a flag
// by name.
func on[P any, A runbook.Action](part func(*runner) P, run func(ctx context.Context, p P, s runbook.Step, a A, log *stepLog) error) binder {
	return func(a runbook.Action) stepFunc {
		t, ok := a.(A)
		if !ok {
			return nil
		}
		return func(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
			return run(ctx, part(r), s, t, log)
		}
	}
}

// The parts a step function may be given.
func workloadOf(r *runner) *workload       { return r.work }
func nemesisOf(r *runner) *nemesis         { return r.nem }
func observationOf(r *runner) *observation { return r.obs }
func checkerOf(r *runner) *checker         { return &r.check }
func backgroundsOf(r *runner) *backgrounds { return &r.bg }
func nothing(*runner) struct{}             { return struct{}{} }

// runners holds the step function of every directive, with the part of
// the run it is given, by the Op the parser resolved. The syntax, usage,
// defaults, checks and the typed Action live in runbook.Directives; a test
// checks that every Op has a step function that takes its Action. The
// binding is the runner's, not the step function's file: a part knows
// nothing of the runner that hands it its steps (TestParts), so a new
// directive costs its line here besides its own two files.
var runners = map[runbook.Op]binder{
	runbook.OpTopicCreate:     on(workloadOf, topicCreate),
	runbook.OpProduce:         on(workloadOf, produce),
	runbook.OpISR:             on(observationOf, isr),
	runbook.OpRead:            on(observationOf, read),
	runbook.OpLogs:            on(observationOf, logs),
	runbook.OpFeatures:        on(observationOf, features),
	runbook.OpFeaturesUpgrade: on(nemesisOf, featuresUpgrade),
	runbook.OpWaitLeader:      on(observationOf, waitLeader),
	runbook.OpWaitISR:         on(observationOf, waitISR),
	runbook.OpWaitProducers:   on(backgroundsOf, waitProducers),
	runbook.OpWaitHealthy:     on(nemesisOf, waitHealthy),
	runbook.OpKill:            on(nemesisOf, fault),
	runbook.OpStop:            on(nemesisOf, fault),
	runbook.OpStart:           on(nemesisOf, fault),
	runbook.OpPause:           on(nemesisOf, fault),
	runbook.OpResume:          on(nemesisOf, fault),
	runbook.OpIsolate:         on(nemesisOf, fault),
	runbook.OpRejoin:          on(nemesisOf, fault),
	runbook.OpRestart:         on(nemesisOf, restart),
	runbook.OpRoll:            on(nemesisOf, restart),
	runbook.OpSleep:           on(nothing, sleep),
	runbook.OpExpect:          on(checkerOf, expect),
	runbook.OpPartition:       on(nemesisOf, partition),
	runbook.OpLink:            on(nemesisOf, link),
	runbook.OpHeal:            on(nemesisOf, heal),
	runbook.OpBrokerAdd:       on(nemesisOf, brokerAdd),
	runbook.OpBrokerRemove:    on(nemesisOf, brokerRemove),
	runbook.OpVoterAdd:        on(nemesisOf, voterAdd),
	runbook.OpVoterRemove:     on(nemesisOf, voterRemove),
	runbook.OpReassign:        on(nemesisOf, reassign),
	runbook.OpWaitReassigned:  on(nemesisOf, waitReassigned),
	runbook.OpLoss:            on(nemesisOf, loss),
	runbook.OpConsume:         on(workloadOf, consume),
	runbook.OpCrashConsumer:   on(workloadOf, crashConsumer),
	runbook.OpStartConsumer:   on(workloadOf, startConsumer),
	runbook.OpStopConsumer:    on(workloadOf, stopConsumer),
	runbook.OpWaitConsumer:    on(workloadOf, waitConsumer),
	runbook.OpOffsets:         on(workloadOf, offsets),
	runbook.OpPowerloss:       on(nemesisOf, powerloss),
	runbook.OpTransform:       on(workloadOf, transform),
	runbook.OpPauseConsumer:   on(workloadOf, pauseConsumer),
	runbook.OpResumeConsumer:  on(workloadOf, resumeConsumer),
	runbook.OpPauseProducer:   on(workloadOf, pauseProducer),
	runbook.OpResumeProducer:  on(workloadOf, resumeProducer),
}
