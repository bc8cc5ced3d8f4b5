package engine

import (
	"context"
	"errors"

	"github.com/kafkabook/kafkabook/runbook"
)

var errTODO = errors.New("consumers: not available yet")

func consume(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error { return errTODO }
func crashConsumer(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	return errTODO
}
func startConsumer(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	return errTODO
}
func stopConsumer(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error { return errTODO }
func waitConsumer(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error { return errTODO }
func offsets(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error      { return errTODO }
