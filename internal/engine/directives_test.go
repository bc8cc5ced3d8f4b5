package engine

import (
	"os"
	"slices"
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/runbook"
)

// TestEveryDirectiveRuns checks that every directive of the registry has
// a runner, and that the runner takes the Action the registry builds: a
// runbook with every directive is checked, and each step is bound.
func TestEveryDirectiveRuns(t *testing.T) {
	if len(runbook.Directives) != int(runbook.NumOps)-1 {
		t.Errorf("%d directives for %d ops", len(runbook.Directives), runbook.NumOps-1)
	}
	const path = "testdata/every-directive.md"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := runbook.Load(path, src, runbook.Overrides{})
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
			t.Errorf("directive %q is not in %s", d.Name, path)
		}
	}
}

// TestFaultOps checks the table from fault directives to the backend's
// operations against both sides: every directive whose runner takes a
// runbook.Fault has an operation, and every operation of the backend has
// exactly one directive.
func TestFaultOps(t *testing.T) {
	var ops []cluster.Op
	for _, d := range runbook.Directives {
		takesFault := runners[d.Op](runbook.Fault{Op: d.Op}) != nil
		op, inTable := faultOps[d.Op]
		if takesFault != inTable {
			t.Errorf("directive %q: runner takes a Fault %v, in faultOps %v", d.Name, takesFault, inTable)
		}
		if inTable {
			ops = append(ops, op)
		}
	}
	if len(faultOps) != len(ops) {
		t.Errorf("faultOps has %d entries, %d of them directives of the registry", len(faultOps), len(ops))
	}
	for _, op := range cluster.Ops {
		if n := len(slices.DeleteFunc(slices.Clone(ops), func(o cluster.Op) bool { return o != op })); n != 1 {
			t.Errorf("backend operation %q is named by %d fault directives, want 1", op, n)
		}
	}
	if len(ops) != len(cluster.Ops) {
		t.Errorf("fault directives name %d operations, the backend has %d", len(ops), len(cluster.Ops))
	}
}
