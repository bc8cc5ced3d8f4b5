package engine

import (
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/runbook"
)

// TestEveryDirectiveRuns checks that every directive of the registry has
// a runner, and that the runner takes the Action the registry builds: the
// runbook of every directive's example is checked, and each step is bound.
func TestEveryDirectiveRuns(t *testing.T) {
	doc, err := runbook.Load("every-directive.md", []byte(runbook.EveryDirective()), runbook.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	steps := []runbook.Step{{Op: runbook.OpPowerloss, Name: "powerloss", Action: runbook.Powerloss{}}}
	for _, b := range doc.Blocks {
		steps = append(steps, b.Steps...)
	}
	bound := map[runbook.Op]bool{}
	for _, s := range steps {
		if bind := runners[s.Op]; bind == nil || bind(s.Action) == nil {
			t.Errorf("%s: %s: no runner takes its %T", s.Pos, s.Text, s.Action)
		}
		bound[s.Op] = true
	}
	for _, d := range runbook.Directives {
		if !bound[d.Op] {
			t.Errorf("directive %q is not in runbook.EveryDirective", d.Name)
		}
	}
	if len(runners) != len(runbook.Directives) {
		t.Errorf("%d runners for %d directives", len(runners), len(runbook.Directives))
	}
}

// TestFaultOps: a directive whose runner takes a runbook.Fault is named
// as an operation of the backend's fault table, and every operation there
// has its directive.
func TestFaultOps(t *testing.T) {
	named := map[cluster.Op]bool{}
	for _, d := range runbook.Directives {
		if bind := runners[d.Op]; bind == nil || bind(runbook.Fault{Op: d.Op}) == nil {
			continue
		}
		if _, ok := cluster.FaultOf(cluster.Op(d.Op)); !ok {
			t.Errorf("directive %q takes a Fault but is no operation of cluster.Faults", d.Name)
		}
		named[cluster.Op(d.Op)] = true
	}
	for _, op := range cluster.Ops {
		if !named[op] {
			t.Errorf("backend operation %q has no fault directive", op)
		}
	}
}
