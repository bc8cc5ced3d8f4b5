package engine

import (
	"testing"

	"github.com/kafkabook/kafkabook/runbook"
)

// TestEveryDirectiveRuns checks that every directive of the registry has
// a runner.
func TestEveryDirectiveRuns(t *testing.T) {
	for _, d := range runbook.Directives {
		if runners[d.Op] == nil {
			t.Errorf("directive %q has no runner in the engine", d.Name)
		}
	}
	if len(runbook.Directives) != int(runbook.NumOps)-1 {
		t.Errorf("%d directives for %d ops", len(runbook.Directives), runbook.NumOps-1)
	}
}
