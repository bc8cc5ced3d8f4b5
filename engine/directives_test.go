package engine

import (
	"testing"

	"github.com/kafkabook/kafkabook/runbook"
)

// TestEveryDirectiveRuns keeps the engine's runners and the runbook's
// registry the same list.
func TestEveryDirectiveRuns(t *testing.T) {
	names := map[string]bool{}
	for _, d := range runbook.Directives {
		names[d.Name] = true
		if directives[d.Name] == nil {
			t.Errorf("directive %q has no runner in the engine", d.Name)
		}
	}
	for name := range directives {
		if !names[name] {
			t.Errorf("runner %q has no directive in runbook.Directives", name)
		}
	}
}
