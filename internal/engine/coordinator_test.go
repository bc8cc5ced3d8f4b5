package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// coordinatorRunbook aims faults at the coordinators of a transform
// group: its transaction coordinator (of the members' transactional id)
// and its group coordinator, each paused and resumed at once so that
// neither moves, and the transaction coordinator of a transactional
// producer's id.
const coordinatorRunbook = "---\ntitle: coordinators\nnodes: 3\nrepeat: 1\n---\n" + "```kafka" + `
topic create in --replicas 1:2:3
topic create out --replicas 2:3:1
produce in --acks all --count 10
topic create tx --replicas 3:1:2
produce tx --acks all --count 4 --transactional --txn-size 2
transform in --to out --group g --eos --batch 5 &
wait consumer g --timeout 60s
pause coordinator(txn:g)
resume coordinator(txn:g)
pause coordinator(group:g)
resume coordinator(group:g)
pause coordinator(txn:tx)
resume coordinator(txn:tx)
expect eos_duplicates(g) == 0
expect eos_missing(g) == 0
` + "```\n"

// TestCoordinatorSelectors checks that coordinator(txn:NAME) and
// coordinator(group:G) resolve to the node the cluster names, asked by
// an admin client of the test's own (kadm FindCoordinators) for the
// transactional ids and the group the run's evidence records.
func TestCoordinatorSelectors(t *testing.T) {
	backend, st := sharedThree(t)
	res, _, _, err := runRunbook(t, backend, t.TempDir(), "coordinators.md", coordinatorRunbook)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run := res.Runs[0]
	allHeld(t, run)
	g, ok := run.Consumer("g")
	if !ok || len(run.Transactions) == 0 {
		t.Fatalf("no group g or no transactions in the evidence")
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(st.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	node := func(rs kadm.FindCoordinatorResponses, key string) string {
		r, ok := rs[key]
		if !ok || r.Err != nil {
			t.Fatalf("FindCoordinator %s: %v", key, r.Err)
		}
		return fmt.Sprintf("k%d", r.NodeID)
	}
	want := []string{
		node(adm.FindTxnCoordinators(ctx, "kafkabook-transform-"+g.Group), "kafkabook-transform-"+g.Group),
		node(adm.FindGroupCoordinators(ctx, g.Group), g.Group),
		node(adm.FindTxnCoordinators(ctx, run.Transactions[0].TransactionalID), run.Transactions[0].TransactionalID),
	}
	if len(run.Faults) != 6 {
		t.Fatalf("%d faults, want 6: %+v", len(run.Faults), run.Faults)
	}
	for i, w := range want {
		for _, f := range run.Faults[2*i : 2*i+2] {
			if len(f.Nodes) != 1 || f.Nodes[0] != w {
				t.Errorf("%s %s: nodes %v, want [%s] (kadm's coordinator)", f.Pos, f.Op, f.Nodes, w)
			}
		}
	}
	t.Logf("coordinators: txn of the transform %s, group %s, txn of the producer %s", want[0], want[1], want[2])
}
