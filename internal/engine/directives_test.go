package engine

import (
	"slices"
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/results"
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

// TestFaultKinds checks the evidence's fault table (results.FaultKinds:
// the windows the report shades and explain holds against losses) against
// the cluster's (cluster.Faults) and the runbook's directives: every
// directive that hurts lands as ops the evidence knows, and every node
// fault opens the window named after the state it leaves, ended by its
// repair.
func TestFaultKinds(t *testing.T) {
	for _, d := range runbook.Directives {
		if !d.Hurts {
			continue
		}
		ops := []string{d.Name}
		switch d.Op {
		case runbook.OpRestart, runbook.OpRoll: // stop (or kill), then start
			ops = []string{string(cluster.Stop), string(cluster.Kill), string(cluster.Start)}
		case runbook.OpFeaturesUpgrade: // no fault event: its output says what changed
			ops = nil
		case runbook.OpWaitReassigned: // ends the reassignment's window
			ops = []string{"reassigned"}
		case runbook.OpLink: // --rate lands as link, --delay as delay
			ops = []string{"link", "delay"}
		}
		if f, ok := cluster.FaultOf(cluster.Op(d.Op)); ok && len(f.Steps) > 0 {
			ops = nil // a compound fault lands as its steps
			for _, s := range f.Steps {
				ops = append(ops, string(s))
			}
		}
		for _, op := range ops {
			if _, ok := results.FaultKindOf(op); !ok {
				t.Errorf("directive %s lands as %s, which results.FaultKinds does not have", d.Name, op)
			}
		}
	}
	for _, f := range cluster.Faults {
		k, ok := results.FaultKindOf(string(f.Op))
		switch {
		case len(f.Steps) > 0: // lands as its steps, checked above
		case !ok:
			t.Errorf("cluster fault %s is not in results.FaultKinds", f.Op)
		case f.Repair != "" && (k.Opens != string(f.Leaves) || !slices.Contains(k.EndedBy, string(f.Repair))):
			t.Errorf("cluster fault %s leaves %s, undone by %s; results.FaultKinds says it opens %q, ended by %v", f.Op, f.Leaves, f.Repair, k.Opens, k.EndedBy)
		}
	}
}
