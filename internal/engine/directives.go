package engine

import (
	"context"

	"github.com/kafkabook/kafkabook/runbook"
)

// runFunc performs one step. It prints through log; an error ends the run.
type runFunc func(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error

// runners holds the runner of every directive, indexed by the Op the
// parser resolved. The syntax, usage, defaults and checks live in
// runbook.Directives; a test checks that every Op has a runner.
var runners = [runbook.NumOps]runFunc{
	runbook.OpTopicCreate:   topicCreate,
	runbook.OpProduce:       produce,
	runbook.OpISR:           isr,
	runbook.OpRead:          read,
	runbook.OpLogs:          logs,
	runbook.OpWaitLeader:    waitLeader,
	runbook.OpWaitISR:       waitISR,
	runbook.OpWaitProducers: waitProducers,
	runbook.OpWaitHealthy:   waitHealthy,
	runbook.OpKill:          fault,
	runbook.OpStop:          fault,
	runbook.OpStart:         fault,
	runbook.OpPause:         fault,
	runbook.OpResume:        fault,
	runbook.OpIsolate:       fault,
	runbook.OpRejoin:        fault,
	runbook.OpSleep:         sleep,
	runbook.OpExpect:        expect,
	runbook.OpPartition:     partition,
	runbook.OpHeal:          heal,
	runbook.OpLoss:          loss,
	runbook.OpConsume:       consume,
	runbook.OpCrashConsumer: crashConsumer,
	runbook.OpStartConsumer: startConsumer,
	runbook.OpStopConsumer:  stopConsumer,
	runbook.OpWaitConsumer:  waitConsumer,
	runbook.OpOffsets:       offsets,
	runbook.OpPowerloss:     powerloss,
}
