package engine_test

import (
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

// uncleanRunbook writes to a partition of two replicas after its follower
// stopped, kills the leader, and elects the stale follower by hand: the
// messages only the dead leader held are gone.
const uncleanRunbook = "# An unclean election by hand\n\n```kafka\n" +
	"topic create u --replicas 1:2 --config min.insync.replicas=1\n" +
	"produce u --acks 1 --count 100 --rate 200/s\n" +
	"stop k2\n" +
	"produce u --acks 1 --from 101 --count 100 --rate 200/s\n" +
	"kill k1\n" +
	"start k2\n" +
	"sleep 15s\n" + // k1's broker session times out: the partition has no leader
	"elect u --unclean\n" +
	"wait leader u in k2\n" +
	"start k1\n" +
	"wait healthy --timeout 2m\n" +
	"expect lost(u) == 100\n" +
	"```\n"

// TestElectUnclean runs elect --unclean on a real cluster: the fault
// event says the partition went from no leader to k2, observed from
// fresh metadata, and the 100 messages only k1 held are lost, which the
// test's own reader confirms: the topic holds m-1..m-100 and none of
// m-101..m-200.
func TestElectUnclean(t *testing.T) {
	testcluster.FullTier(t) // the fast tier runs elect --preferred in TestEveryDirectiveOnCluster
	b, _ := sharedThree(t)
	res, _ := runHeld(t, b, "unclean.md", uncleanRunbook)
	var e *results.Fault
	for i, f := range res.Runs[0].Faults {
		if f.Op == "elect" {
			e = &res.Runs[0].Faults[i]
		}
	}
	if e == nil || strings.Join(e.Nodes, " ") != "u --unclean" || e.Unproven || !strings.Contains(e.Observed, "partition 0: leader none → k2") {
		t.Fatalf("elect's fault event %+v: want u --unclean, observed partition 0: leader none → k2", e)
	}
	t.Logf("observed: %s", e.Observed)
	got := newIndependentReader(t, b).read("u")
	for i := int64(1); i <= 200; i++ {
		id := results.MessageID(i)
		if _, found := got[id]; found != (i <= 100) {
			t.Errorf("%s in the topic: %v; want the first 100 only", id, found)
		}
	}
}
