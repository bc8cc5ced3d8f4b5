package cluster

import "testing"

// TestFaultTable: every fault's repair is an op of the table that leaves
// a node running, and every state a fault leaves has its repair.
func TestFaultTable(t *testing.T) {
	for _, f := range Faults {
		if f.Repair == "" {
			continue
		}
		r, ok := FaultOf(f.Repair)
		if !ok || r.Leaves != Running || r.Repair != "" {
			t.Errorf("%s: its repair %s is not a repair that leaves a node running (%+v)", f.Op, f.Repair, r)
		}
		if got := RepairFor(f.Leaves); got != f.Repair {
			t.Errorf("RepairFor(%s) = %q, want %s", f.Leaves, got, f.Repair)
		}
	}
	for _, s := range []State{Running, Unknown} {
		if op := RepairFor(s); op != "" {
			t.Errorf("RepairFor(%s) = %s, want none", s, op)
		}
	}
	if RepairFor(Exited) != Start {
		t.Errorf("an exited node is not started again")
	}
}
