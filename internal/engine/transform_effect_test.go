package engine_test

import (
	"database/sql"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/twmb/franz-go/pkg/kgo"
)

// effectRunbook: two exactly-once transform groups that also apply each
// record's effect to their SQLite store, over 20 records in polls of 5,
// crash right after the effect of their 13th (m-013), before the poll's
// transaction commits, and are restarted. effect has no dedup: the effects
// of m-011..m-013 are applied again by the successor, although Kafka's
// output holds each derived record once. handled checks event_handled
// first (--dedup table): once.
const effectRunbook = "---\ntitle: transform effect\nnodes: 1\nrepeat: 1\n---\n" + "```kafka" + `
topic create in --replication-factor 1
topic create fx --replication-factor 1
topic create fx2 --replication-factor 1
produce in --acks all --count 20
transform in --to fx --group effect --eos --effect --batch 5 --crash-at 13 &
transform in --to fx2 --group handled --eos --effect --dedup table --batch 5 --crash-at 13 &
wait consumer effect --timeout 60s
wait consumer handled --timeout 60s
start consumer effect
start consumer handled
wait consumer effect --timeout 90s
wait consumer handled --timeout 90s
expect eos_duplicates(effect) == 0
expect eos_missing(effect) == 0
expect applied_twice(effect) == {m-011..m-013}
expect eos_duplicates(handled) == 0
expect eos_missing(handled) == 0
expect applied_twice(handled) == 0
expect unapplied(handled) == 0
` + "```\n"

// TestTransformEffect: Kafka's transaction makes the output exactly once
// through the crash, but not an effect in the group's store: the store,
// opened directly, counts m-011..m-013 twice without dedup and every
// event once with event_handled.
func TestTransformEffect(t *testing.T) {
	backend, st := sharedOne(t)
	res, dir, _, err := runRunbook(t, backend, t.TempDir(), "effect.md", effectRunbook)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run := res.Runs[0]
	allHeld(t, run)
	want := map[string]map[string]int{"effect": {}, "handled": {}}
	for n := 1; n <= 20; n++ {
		id := kafka.MessageID(n)
		want["effect"][id], want["handled"][id] = 1, 1
	}
	for _, id := range []string{"m-011", "m-012", "m-013"} {
		want["effect"][id] = 2
	}
	for _, g := range []string{"effect", "handled"} {
		c, ok := run.Consumer(g)
		if !ok || c.Store == "" || c.Tally == nil || c.Tally.EOS == nil || c.Tally.EOS.Once != 20 {
			t.Fatalf("group %s: want a store and an exactly-once check of 20 inputs once each: %+v", g, c)
		}
		db, err := sql.Open("sqlite", filepath.Join(dir, c.Store))
		if err != nil {
			t.Fatal(err)
		}
		times := map[string]int{}
		rows, err := db.Query(`SELECT event_id, times FROM applied`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			var n int
			if err := rows.Scan(&id, &n); err != nil {
				t.Fatal(err)
			}
			times[id] = n
		}
		rows.Close()
		var handled int
		if err := db.QueryRow(`SELECT count(*) FROM event_handled`).Scan(&handled); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if !maps.Equal(times, want[g]) {
			t.Errorf("group %s: the store's applied counts %v, want %v", g, times, want[g])
		}
		if wantHandled := map[string]int{"effect": 0, "handled": 20}[g]; handled != wantHandled {
			t.Errorf("group %s: event_handled holds %d ids, want %d", g, handled, wantHandled)
		}
		t.Logf("group %s: store counts %v; event_handled %d", g, times, handled)
	}
	// The output, read by the test's own client: each input once.
	suffix := run.Consumers[0].Group[len("effect"):]
	var all []string
	for n := 1; n <= 20; n++ {
		all = append(all, kafka.MessageID(n))
	}
	for _, out := range []string{"fx", "fx2"} {
		if got := readAllIDs(t, st.Bootstrap(), out+suffix, kgo.ReadCommitted()); !slices.Equal(got, all) {
			t.Errorf("independent read_committed of %s: %v, want m-001..m-020 once each", out, got)
		}
	}
}
