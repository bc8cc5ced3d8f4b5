package engine_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kgo"
)

// zombieRunbook: an exactly-once transform member per client is frozen
// (SIGSTOP) mid-run, in a transaction of 5 records at 300 ms each; its
// successor starts beside it with the same transactional.id, fences it
// and processes every input; then the frozen member goes on (SIGCONT), and
// its next send or commit fails. Both clients' groups (zf: franz-go, zj:
// java) read the same input in one run, each writing its own output.
const zombieRunbook = "---\ntitle: zombie\nnodes: 1\nrepeat: 1\n---\n" + "```kafka" + `
topic create in --replication-factor 1
topic create outf --replication-factor 1
topic create outj --replication-factor 1
produce in --acks all --count 30
transform in --to outf --group zf --client franz-go --eos --batch 5 --work 300ms &
transform in --to outj --group zj --client java --eos --batch 5 --work 300ms &
sleep 3s
pause consumer zf
pause consumer zj
start consumer zf
start consumer zj
wait consumer zf --timeout 90s
wait consumer zj --timeout 90s
resume consumer zf
resume consumer zj
sleep 5s
expect fenced(zf) == 1
expect fenced(zj) == 1
expect eos_duplicates(zf) == 0
expect eos_missing(zf) == 0
expect eos_duplicates(zj) == 0
expect eos_missing(zj) == 0
` + "```\n"

// TestTransformZombie runs the zombie case for each client in one run:
// the frozen member reports the fencing error as a fenced event and ends,
// every input is in its group's output once among committed records (the
// test's own read_committed reader), and what the zombie wrote or tried
// to write in its open transaction is in the output's log only as records
// of an aborted transaction.
func TestTransformZombie(t *testing.T) {
	installDriver(t, "java")
	backend, st := sharedOne(t)
	start := time.Now()
	res, err := runWithClient(t, backend, "franz-go", zombieRunbook)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("the run took %s", time.Since(start).Round(time.Second))
	run := res.Runs[0]
	allHeld(t, run)
	for _, row := range []struct{ client, key string }{{"franz-go", "f"}, {"java", "j"}} {
		client := row.client
		t.Run(client, func(t *testing.T) {
			c, ok := run.Consumer("z" + row.key)
			if !ok || c.Tally == nil || c.Tally.EOS == nil {
				t.Fatalf("no exactly-once check of group z: %+v", c)
			}
			if len(c.Members) != 2 {
				t.Fatalf("members %+v, want the frozen one and its successor", c.Members)
			}
			if z := c.Members[0]; z.How != results.MemberStopped || !strings.Contains(z.Reason, "fenced") {
				t.Errorf("the zombie ended %s (%s), want stopped, fenced", z.How, z.Reason)
			}
			// The zombie's events: the fenced error, and the derived
			// records it wrote after its last commit.
			var fenced string
			var open []string
			for _, e := range c.Events {
				if e.Member != 1 {
					continue
				}
				switch e.Kind {
				case results.EventFenced:
					// The write it refused is the open transaction's
					// too: an attempt of it sent before the freeze may
					// be in OUT's log, and the refusal a later attempt's
					// (CI saw franz-go's m-006 so, once).
					fenced = e.Error
					if e.ID != "" {
						open = append(open, e.ID)
					}
				case results.EventCommit:
					open = nil
				case results.EventEffect:
					open = append(open, e.ID)
				}
			}
			if fenced == "" {
				t.Errorf("the zombie reported no fenced event")
			}
			t.Logf("%s: the zombie's error: %s; its open transaction held %v", client, fenced, open)

			var all []string
			for n := 1; n <= 30; n++ {
				all = append(all, kafka.MessageID(n))
			}
			out := "out" + row.key + c.Group[len("z"+row.key):] // the group's suffix is the run's
			committed := readAllIDs(t, st.Bootstrap(), out, kgo.ReadCommitted())
			if !slices.Equal(committed, all) {
				t.Errorf("independent read_committed of out: %v, want m-001..m-030 once each", committed)
			}
			uncommitted := readAllIDs(t, st.Bootstrap(), out, kgo.ReadUncommitted())
			extra := slices.Clone(uncommitted)
			for _, id := range committed {
				if i := slices.Index(extra, id); i >= 0 {
					extra = slices.Delete(extra, i, i+1)
				}
			}
			results.SortIDs(open)
			t.Logf("%s: read_uncommitted finds besides the committed records (aborted): %v", client, extra)
			for _, id := range extra {
				if !slices.Contains(open, id) {
					t.Errorf("out holds an uncommitted %s that the zombie's open transaction did not write (%v)", id, open)
				}
			}
			if got := c.Tally.EOS; got.Once != 30 || len(got.Duplicates) != 0 || len(got.Missing) != 0 {
				t.Errorf("exactly-once check: once %d, duplicates %v, missing %v", got.Once, got.Duplicates, got.Missing)
			}
		})
	}
}
