package engine

import (
	"context"
	"errors"

	"github.com/kafkabook/kafkabook/runbook"
)

// powerloss: powerloss NODE...
func powerloss(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	return errors.New("powerloss: not available yet")
}
