package engine

import (
	"slices"
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
	// The directives left out of it (Alone) are bound here by hand.
	steps := []runbook.Step{
		{Op: runbook.OpPowerloss, Name: "powerloss", Action: runbook.Powerloss{}},
		{Op: runbook.OpDisk, Name: "disk", Action: runbook.Disk{}},
		{Op: runbook.OpClock, Name: "clock", Action: runbook.Clock{}},
		{Op: runbook.OpBrokerAdd, Name: "broker add", Action: runbook.BrokerAdd{}},
		{Op: runbook.OpBrokerRemove, Name: "broker remove", Action: runbook.BrokerRemove{}},
		{Op: runbook.OpVoterAdd, Name: "voter add", Action: runbook.VoterAdd{}},
		{Op: runbook.OpVoterRemove, Name: "voter remove", Action: runbook.VoterRemove{}},
	}
	for _, b := range doc.Blocks {
		steps = append(steps, b.Steps...)
	}
	bound := map[runbook.Op]bool{}
	for _, s := range steps {
		if bind := handlers[s.Op]; bind == nil || bind(s.Action) == nil {
			t.Errorf("%s: %s: no runner takes its %T", s.Pos, s.Text, s.Action)
		}
		bound[s.Op] = true
	}
	for _, d := range runbook.Directives {
		if !bound[d.Op] {
			t.Errorf("directive %q is not in runbook.EveryDirective", d.Name)
		}
	}
	if len(handlers) != len(runbook.Directives) {
		t.Errorf("%d step functions for %d directives", len(handlers), len(runbook.Directives))
	}
}

// TestFaultOps: a directive whose runner takes a runbook.Fault is named
// as an operation of the backend's fault table, and every operation there
// has its directive.
func TestFaultOps(t *testing.T) {
	named := map[cluster.Op]bool{}
	for _, d := range runbook.Directives {
		if bind := handlers[d.Op]; bind != nil && bind(runbook.Restart{}) != nil {
			named[cluster.Restart] = true // restart and roll: stops and starts, node by node
			continue
		}
		if bind := handlers[d.Op]; bind == nil || bind(runbook.Fault{Op: d.Op}) == nil {
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

// TestFaultKinds checks the fault table (runbook.FaultKinds: each
// directive's rows) against the directives that hurt the cluster and the
// backends' node operations (cluster.Faults): every directive that hurts
// records fault events the table has, every node fault opens the window
// named after the state it leaves, ended by its repair, and every window
// but a reassignment's names the repair heal applies.
func TestFaultKinds(t *testing.T) {
	for _, d := range runbook.Directives {
		if !d.Hurts {
			continue
		}
		switch d.Op {
		case runbook.OpRestart, runbook.OpRoll: // stop (or kill), then start: rows of their own directives
			for _, op := range []cluster.Op{cluster.Stop, cluster.Kill, cluster.Start} {
				if _, ok := runbook.FaultKindOf(string(op)); !ok {
					t.Errorf("directive %s lands as %s, which the fault table does not have", d.Name, op)
				}
			}
			continue
		case runbook.OpFeaturesUpgrade: // no fault event: its output says what changed
			continue
		}
		if len(d.Lands) == 0 {
			t.Errorf("directive %s hurts the cluster and has no row in the fault table (Lands)", d.Name)
		}
	}
	for _, f := range cluster.Faults {
		if len(f.Steps) > 0 { // lands as its steps
			continue
		}
		k, ok := runbook.FaultKindOf(string(f.Op))
		switch {
		case !ok:
			t.Errorf("cluster fault %s is not in the fault table", f.Op)
		case f.Repair != "" && (k.Opens != string(f.Leaves) || !slices.Contains(k.EndedBy, string(f.Repair))):
			t.Errorf("cluster fault %s leaves %s, undone by %s; the fault table says it opens %q, ended by %v", f.Op, f.Leaves, f.Repair, k.Opens, k.EndedBy)
		}
	}
	for _, k := range runbook.FaultKinds {
		if k.Opens != "" && k.Repair == "" && k.Op != "reassign" {
			t.Errorf("fault %s opens a window (%s) and names no repair for heal", k.Op, k.Opens)
		}
	}
}
