package engine_test

import (
	"slices"
	"testing"

	"github.com/kafkabook/kafkabook/runbook"
)

// TestEveryDirectiveOnCluster runs runbook.EveryDirective, every
// directive's example but powerloss's, on the shared three-node cluster, so
// that the fast tier runs every directive at least once whatever examples
// it leaves to the full tier: the run must complete, every step must have
// run without an error, and both expectations must hold. What each
// directive does is checked by the tests of its own; this one catches a
// directive that no longer runs at all.
func TestEveryDirectiveOnCluster(t *testing.T) {
	installDriver(t, runbook.Java) // produce --client java, pause producer
	backend, _ := sharedThree(t)
	const path = "every-directive.md"
	src := []byte(runbook.EveryDirective())
	res, _, _, err := runRunbook(t, backend, t.TempDir(), path, string(src))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(res.Runs) != 1 || !res.Runs[0].Complete {
		t.Fatalf("%d runs, want one complete run", len(res.Runs))
	}
	run := res.Runs[0]
	doc, err := runbook.Load(path, src, runbook.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	for _, s := range run.Steps {
		ran[s.Pos] = true
	}
	for _, b := range doc.Blocks {
		for _, s := range b.Steps {
			if !ran[s.Pos.String()] {
				t.Errorf("%s: %s: no output recorded: did it run?", s.Pos, s.Text)
			}
		}
	}
	for _, s := range run.Steps {
		if s.Error != "" {
			t.Errorf("%s: %s: %s", s.Pos, s.Text, s.Error)
		}
	}
	if len(run.Expectations) != 2 {
		t.Errorf("%d expectations checked, want 2", len(run.Expectations))
	}
	for _, e := range run.Expectations {
		if !e.Held {
			t.Errorf("%s: %s did not hold: %s", e.Pos, e.Expr, e.Actual)
		}
	}
	// The fault steps reached the backend: one fault event each.
	var faults []string
	for _, f := range run.Faults {
		faults = append(faults, f.Op)
	}
	for _, op := range []string{"kill", "stop", "start", "pause", "resume", "isolate", "rejoin", "partition", "heal", "loss"} {
		if !slices.Contains(faults, op) {
			t.Errorf("no %s among the run's faults %v", op, faults)
		}
	}
	// Each fault says what the cluster showed of it, read from the nodes
	// and the network (the local backend is a cluster.Observer, can probe
	// across a cut and reads the kernel's counts of a loss and a narrow
	// link), and none is unproven: the loss and the narrow link say at
	// their step what the kernel holds in force, and each heal what the
	// loss or the bucket it ended did.
	observed := map[string]bool{"kill": true, "stop": true, "start": true, "pause": true, "resume": true, "isolate": true, "rejoin": true, "partition": true, "corrupt": true, "delay": true, "loss": true, "link": true, "heal": true}
	for _, f := range run.Faults {
		if f.Unproven {
			t.Errorf("%s %v at %s: unproven: %s", f.Op, f.Nodes, f.Pos, f.Observed)
		}
		if observed[f.Op] && f.Observed == "" {
			t.Errorf("%s %v at %s: nothing observed", f.Op, f.Nodes, f.Pos)
		}
		t.Logf("%s %v at %s: %s", f.Op, f.Nodes, f.Pos, f.Observed)
	}
}
