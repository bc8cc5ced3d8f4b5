package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	_ "modernc.org/sqlite"
)

// consumerRunbook has two groups:
//
//   - after: commits after each effect and crashes itself after the 4th
//     effect, before its commit; its successor must resume at offset 3
//     and apply m-004 a second time;
//   - before: commits before processing and is killed by crash consumer
//     while processing: the record in hand is committed and never applied.
const consumerRunbook = "---\ntitle: consumer test\nnodes: 3\nrepeat: 1\n---\n" + "```kafka" + `
topic create c --replicas 1:2:3
produce c --acks all --count 10 --key 7
consume c --group after --commit after --batch 10 --work 100ms --crash-at 4 --crash-point handled &
wait consumer after --timeout 60s
start consumer after
wait consumer after --timeout 60s
offsets after
expect applied_twice(after) == 1
expect unapplied(after) == 0

topic create b --replicas 1:2:3
produce b --acks all --count 5
consume b --group before --commit before --batch 5 --work 2s &
sleep 3s
crash consumer before
start consumer before
wait consumer before --timeout 60s
expect unapplied(before) == 1
` + "```\n"

// TestConsumers checks that a consumer crash is a real one and that the
// tallies hold against readers of the test's own: an admin client built
// from the backend's addresses for the committed offsets, and the group's
// SQLite file opened directly for the effects.
func TestConsumers(t *testing.T) {
	backend, _ := sharedThree(t)
	res, dir, _, err := runRunbook(t, backend, t.TempDir(), "consumers.md", consumerRunbook)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run := res.Runs[0]
	for _, e := range run.Expectations {
		if !e.Held {
			t.Errorf("%s: %s is %s", e.Pos, e.Expr, e.Actual)
		}
	}
	after, ok := run.Consumer("after")
	if !ok || after.Tally == nil {
		t.Fatalf("no tally of group after: %+v", run.Consumers)
	}

	// The crash is real: the member's process is gone, and it ended by SIGKILL.
	if len(after.Members) != 2 {
		t.Fatalf("group after has %d members, want 2", len(after.Members))
	}
	m1 := after.Members[0]
	if m1.How != results.MemberCrashed || m1.PID <= 0 {
		t.Errorf("member 1 ended %q (%s), pid %d; want crashed", m1.How, m1.Reason, m1.PID)
	}
	if err := syscall.Kill(m1.PID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("member 1's process %d still exists (kill 0: %v)", m1.PID, err)
	}

	// The successor resumes at the committed offset: m-004 (offset 3) was
	// applied and not committed, so it comes first, and again.
	var first2 *results.ConsumerEvent
	for i, e := range after.Events {
		if e.Member == 2 && e.Kind == results.EventDeliver {
			first2 = &after.Events[i]
			break
		}
	}
	if first2 == nil || first2.Offset != 3 || first2.ID != "m-004" {
		t.Errorf("member 2's first delivery = %+v, want m-004 at offset 3", first2)
	}
	tl := after.Tally
	if len(tl.AppliedTwice) != 1 || tl.AppliedTwice[0].Event != "m-004" || tl.AppliedTwice[0].Times != 2 {
		t.Errorf("applied twice = %+v, want m-004 twice", tl.AppliedTwice)
	}
	// Member 1 had polled all ten; m-004..m-010 came again to member 2.
	if want := []string{"m-004", "m-005", "m-006", "m-007", "m-008", "m-009", "m-010"}; !slices.Equal(tl.Redelivered, want) || tl.Delivered != 10 {
		t.Errorf("redelivered %v of %d delivered, want %v of 10", tl.Redelivered, tl.Delivered, want)
	}
	if tl.Likes["7"] != 11 {
		t.Errorf("like count of product 7 = %d, want 11 (10 messages, one applied twice)", tl.Likes["7"])
	}

	// The store, read directly.
	db, err := sql.Open("sqlite", filepath.Join(dir, after.Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT event_id, times FROM applied`)
	if err != nil {
		t.Fatal(err)
	}
	times := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		times[id] = n
	}
	rows.Close()
	if len(times) != 10 || times["m-004"] != 2 || times["m-003"] != 1 || times["m-005"] != 1 {
		t.Errorf("the store's applied counts = %v, want m-001..m-010 once, m-004 twice", times)
	}

	// The committed offsets, asked by a client of the test's own.
	committed := independentOffsets(t, backend.Status, "after", "c")
	if committed[0] != 10 || tl.Committed[0] != 10 {
		t.Errorf("committed offset of group after: independent client %v, kafkabook %v; want 10", committed, tl.Committed)
	}
	before, _ := run.Consumer("before")
	if got := independentOffsets(t, backend.Status, "before", "b"); before.Tally == nil || got[0] != before.Tally.Committed[0] || got[0] != 5 {
		t.Errorf("committed offset of group before: independent client %v, kafkabook %+v; want 5", got, before.Tally)
	}
	// crash consumer killed the member while it processed a record whose
	// offset it had committed: exactly that record is never applied.
	if before.Tally != nil {
		var inHand string
		for _, e := range before.Events {
			if e.Member == 1 && e.Kind == results.EventCommit {
				inHand = results.MessageID(e.Offset) // committed offset o+1 is record o's successor: m-(o+1) is record o
			}
		}
		if !slices.Equal(before.Tally.Unapplied, []string{inHand}) {
			t.Errorf("unapplied = %v, want [%s], the record in hand at the crash", before.Tally.Unapplied, inHand)
		}
		if before.Members[0].How != results.MemberCrashed || !strings.Contains(before.Members[0].Reason, "crash consumer") {
			t.Errorf("member 1 of before ended %q: %s", before.Members[0].How, before.Members[0].Reason)
		}
	}

	// The evidence on disk says the same.
	loaded, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	lc, ok := loaded.Runs[0].Consumer("after")
	if !ok || lc.Tally == nil || len(lc.Events) != len(after.Events) || len(lc.Members) != 2 {
		t.Errorf("results.json disagrees about group after")
	}
}

// independentOffsets finds the group whose name starts with label and a
// run suffix and returns its committed offsets of the topic whose name
// starts with topic, through an admin client made here.
func independentOffsets(t *testing.T, status func(context.Context) (cluster.Status, error), label, topic string) map[int32]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(st.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	groups, err := adm.ListGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var name string
	for _, g := range groups.Groups() {
		if strings.HasPrefix(g, label+"-r") {
			name = g
		}
	}
	if name == "" {
		t.Fatalf("no group %s-r… in the cluster: %v", label, groups.Groups())
	}
	offs, err := adm.FetchOffsets(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int64{}
	for tp, ps := range offs {
		if strings.HasPrefix(tp, topic+"-r") {
			for p, o := range ps {
				out[p] = o.At
			}
		}
	}
	return out
}
