package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/engine"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// checkerRunbook holds the experiments of the checker's tests, run once
// each on one cluster:
//
//   - healthy: acks=1 on a healthy cluster, read at once: nothing may be
//     called lost, whatever the high watermark showed at that moment;
//   - acks1: the seed article's experiment with a 2 s pause after the first
//     batch, so the followers have it: exactly the second batch is lost;
//   - acksall: the same fault with acks=all: nothing lost;
//   - unk: acks=all sends that time out while the followers are cut off, and
//     are replicated once they are back: unknown, but present.
//
// acksall and unk turn franz-go's default idempotence off: acksall so that
// a retried batch may be written twice (the checker must count a message
// present once, whatever its copies), unk so that every send goes to the
// leader: an idempotent producer first asks any broker for a producer id
// (kgo's InitProducerID), and with idempotence on, a run of this test saw
// the three sends never leave the client and fail after about 20 s
// ("records have timed out before they were able to be produced")
// rather than go unanswered.
const checkerRunbook = "---\n" + `title: checker test
nodes: 3
broker:
  replica.lag.time.max.ms: 3000
repeat: 1
---
` + "```kafka" + `
topic create healthy --replicas 1:2:3
produce healthy --acks 1 --count 5
read healthy
expect lost(healthy) == 0
expect present(healthy) == 5
topic create warm --replicas 1:2:3
produce warm --acks all --count 3

topic create acks1 --replicas 1:2:3
produce acks1 --acks 1 --count 10
sleep 2s
isolate k2 k3
produce acks1 --acks 1 --from 11 --count 10
kill k1
rejoin k2 k3
wait leader acks1 in k2,k3 --timeout 90s
read acks1 --via k2
expect lost(acks1) == 10
start k1
wait healthy --timeout 120s

topic create acksall --replicas 1:2:3
produce acksall --acks all --idempotent=false --count 10
isolate k2 k3
produce acksall --acks all --idempotent=false --from 11 --count 10 --timeout 150s &
sleep 3s
kill k1
rejoin k2 k3
wait leader acksall in k2,k3 --timeout 90s
wait producers --timeout 150s
read acksall --via k2
expect lost(acksall) == 0
expect acked(acksall) == 20
start k1
wait healthy --timeout 120s

topic create unk --replicas 1:2:3
produce unk --acks all --idempotent=false --count 1
isolate k2 k3
produce unk --acks all --idempotent=false --from 2 --count 3 --timeout 6s
rejoin k2 k3
wait isr unk --size 3 --timeout 60s
expect unknown(unk) == 3
` + "```\n"

// TestChecker runs the checker's experiments on a real cluster and checks
// every claim of the final classification against a reader of the test's
// own, which takes topic names from the cluster's topic list and broker
// addresses from the backend's status, not from the engine.
func TestChecker(t *testing.T) {
	backend, _ := sharedThree(t)
	res, dir, _, err := runRunbook(t, backend, t.TempDir(), "checker.md", checkerRunbook)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(res.Runs) != 1 || !res.Complete {
		t.Fatalf("%d runs, complete %v; want 1 complete run", len(res.Runs), res.Complete)
	}
	run := res.Runs[0]
	allHeld(t, run)
	if len(run.Expectations) != 6 {
		t.Errorf("%d expectations checked, want 6", len(run.Expectations))
	}

	// The evidence on disk says the same as the returned results.
	loaded, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Runs) != 1 || len(loaded.Runs[0].Final) != len(run.Final) {
		t.Fatalf("results.json disagrees with the run: %d runs", len(loaded.Runs))
	}

	reader := newIndependentReader(t, backend)
	ids := func(from, to int) []string {
		var out []string
		for n := from; n <= to; n++ {
			out = append(out, fmt.Sprintf("m-%03d", n))
		}
		return out
	}
	check := func(label string, wantPresent, wantLost []string) results.Tally {
		t.Helper()
		final, ok := finalTally(run, label)
		if !ok {
			t.Fatalf("%s: no final tally", label)
		}
		if got := final.LostIDs(); !slices.Equal(got, wantLost) {
			t.Errorf("%s: final lost %v, want %v", label, got, wantLost)
		}
		if len(final.Unseen) != 0 {
			t.Errorf("%s: final read left %v unseen", label, final.Unseen)
		}
		found := reader.read(label)
		var present []string
		for _, id := range ids(1, 99) {
			if len(found[id]) > 0 {
				present = append(present, id)
			}
		}
		if !slices.Equal(present, wantPresent) {
			t.Errorf("%s: the independent reader finds %v, want %v", label, present, wantPresent)
		}
		for _, id := range final.LostIDs() {
			if len(found[id]) > 0 {
				t.Errorf("%s: %s called lost, but the independent reader finds it at %v", label, id, found[id])
			}
		}
		if final.Present != len(wantPresent) && label != "unk" {
			t.Errorf("%s: final present %d, want %d", label, final.Present, len(wantPresent))
		}
		return final
	}

	// Healthy: all five present; the read step may have raced the high
	// watermark, but then it called them unseen, never lost.
	check("healthy", ids(1, 5), nil)
	for _, s := range run.Tallies {
		if s.Label == "healthy" && (len(s.Lost) != 0 || s.Present+len(s.Unseen) != 5) {
			t.Errorf("healthy read step: present %d, unseen %v, lost %v; want 5 present or unseen, none lost", s.Present, s.Unseen, s.LostIDs())
		}
	}

	// acks=1: exactly the second batch is lost, with its proof.
	final := check("acks1", ids(1, 10), ids(11, 20))
	for _, l := range final.Lost {
		if l.Offset < 0 || l.HighWatermark <= l.Offset {
			t.Errorf("acks1: %s lost without proof: acknowledged at %d, high watermark %d", l.ID, l.Offset, l.HighWatermark)
		}
	}

	// acks=all: everything acknowledged is there; idempotence is off, so the
	// retried second batch may be there twice.
	check("acksall", ids(1, 20), nil)

	// Unknown, then present: the timed-out sends were replicated after
	// the followers came back.
	final = check("unk", ids(1, 4), nil)
	if want := ids(2, 4); !slices.Equal(final.UnknownPresent, want) {
		t.Errorf("unk: unknown but present %v, want %v", final.UnknownPresent, want)
	}
	if final.Unknown != 3 || final.Acked != 1 {
		t.Errorf("unk: acked %d, unknown %d; want 1 and 3", final.Acked, final.Unknown)
	}

	// Latency counts from a warm producer: healthy acks=all sends on a fresh
	// topic are not charged for loading metadata.
	t.Logf("warm: %+v", run.Latency("warm"))

	// The ISR sampler keeps its promise while the cluster is healthy enough
	// to answer: samples at most 250 ms apart, but for gaps while the
	// brokers it asks are cut off or restarting. The run stores change
	// points, so the promise is read from the sampling it recorded.
	sp := run.ISRSampling
	if len(run.ISR) == 0 || sp == nil || sp.Taken == 0 {
		t.Fatalf("no ISR samples (points %d, sampling %+v)", len(run.ISR), sp)
	}
	if sp.EveryMS <= 0 || sp.EveryMS > 250 {
		t.Errorf("ISR sampled every %d ms, want at most 250", sp.EveryMS)
	}
	if sp.Stored != len(run.ISR) || sp.Stored >= sp.Taken {
		t.Errorf("%d ISR points (%d recorded as stored) of %d samples: a mostly healthy run stores fewer points than it takes samples", len(run.ISR), sp.Stored, sp.Taken)
	}
	var gaps int
	for _, g := range sp.Gaps {
		if gap := g.To.Sub(g.From); gap > 250*time.Millisecond && !duringFault(run, g.From, g.To) {
			t.Logf("ISR samples %s apart at %s", gap, g.To.Sub(run.Start))
			gaps++
		}
	}
	if gaps > 0 {
		t.Errorf("%d ISR sample gaps over 250 ms outside fault windows", gaps)
	}

	t.Run("no machine paths", func(t *testing.T) { testNoMachinePaths(t, backend, dir) })
	// Last: a new run deletes the topics of this one.
	t.Run("evidence write fails", func(t *testing.T) { testEvidenceWriteFails(t, backend) })
}

// duringFault reports whether a fault happened within 15 s before to
// (a restarted or cut-off broker makes metadata requests wait).
func duringFault(run results.Run, from, to time.Time) bool {
	for _, f := range run.Faults {
		if !f.At.After(to) && f.At.After(from.Add(-15*time.Second)) {
			return true
		}
	}
	return false
}

func finalTally(run results.Run, label string) (results.Tally, bool) {
	for _, t := range run.Final {
		if t.Label == label {
			return t, true
		}
	}
	return results.Tally{}, false
}

// independentReader reads topics with a client of the test's own.
type independentReader struct {
	t     *testing.T
	seeds []string
}

func newIndependentReader(t *testing.T, b cluster.Backend) *independentReader {
	st, err := b.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &independentReader{t: t, seeds: st.Bootstrap()}
}

// read finds the one topic in the cluster whose name starts with label
// and a run suffix, reads it to its high watermark, and returns the
// offsets at which each id sits.
func (ir *independentReader) read(label string) map[string][]int64 {
	t := ir.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(ir.seeds...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var name string
	for _, n := range topics.Names() {
		if strings.HasPrefix(n, label+"-r") {
			if name != "" {
				t.Fatalf("two topics for %s: %s and %s", label, name, n)
			}
			name = n
		}
	}
	if name == "" {
		t.Fatalf("no topic for %s in the cluster: %v", label, topics.Names())
	}
	ends, err := adm.ListEndOffsets(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	hw := map[int32]int64{}
	assign := map[int32]kgo.Offset{}
	ends.Each(func(o kadm.ListedOffset) {
		hw[o.Partition] = o.Offset
		assign[o.Partition] = kgo.NewOffset().AtStart()
	})
	rc, err := kgo.NewClient(kgo.SeedBrokers(ir.seeds...), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{name: assign}))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	found := map[string][]int64{}
	next := map[int32]int64{}
	for {
		done := true
		for p, end := range hw {
			done = done && next[p] >= end
		}
		if done {
			return found
		}
		fs := rc.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("independent read of %s: %v at %v of %v", name, ctx.Err(), next, hw)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset < hw[r.Partition] {
				found[string(r.Value)] = append(found[string(r.Value)], r.Offset)
			}
			next[r.Partition] = max(next[r.Partition], r.Offset+1)
		})
	}
}

// evidenceFullRunbook writes more evidence than a 64 KiB file system holds
// (a ledger costs about 20 bytes a message across both files).
const evidenceFullRunbook = "```kafka\ntopic create full --replicas 1:2:3\nproduce full --acks 1 --count 50000\nread full\n```\n"

// testEvidenceWriteFails runs a runbook whose evidence directory fills up:
// the run must fail and say that writing the evidence failed, never end as
// if it had held.
func testEvidenceWriteFails(t *testing.T, backend cluster.Backend) {
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "kbfull", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount a small tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	_, _, _, err := runRunbook(t, backend, mnt, "full.md", evidenceFullRunbook)
	if err == nil || !strings.Contains(err.Error(), "writing the evidence") || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("run with a full evidence disk: err = %v; want it to say writing the evidence failed (no space left)", err)
	}
}

// testNoMachinePaths checks that the evidence names neither the cluster's
// state directory nor the home directory: broker log lines name data
// directories, and evidence is made to be published.
func testNoMachinePaths(t *testing.T, backend cluster.Backend, dir string) {
	var paths []string
	for p := range backend.(cluster.Placeholders).Placeholders() {
		paths = append(paths, p)
	}
	if home, err := os.UserHomeDir(); err == nil {
		paths = append(paths, home)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var placeholders int
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if bytes.Contains(data, []byte(p)) {
				t.Errorf("%s contains %s", e.Name(), p)
			}
		}
		placeholders += bytes.Count(data, []byte("$KAFKABOOK_STATE/k"))
	}
	if placeholders == 0 {
		t.Errorf("no $KAFKABOOK_STATE placeholder in the evidence: were the brokers' data directories not logged?")
	}
}

// runRunbook loads a runbook and runs it on backend, its evidence in a new
// run directory under parent; it returns what the engine printed, and
// logs it once the test is done.
func runRunbook(t *testing.T, backend cluster.Backend, parent, name, src string) (res *results.Results, dir, console string, err error) {
	t.Helper()
	doc, err := runbook.Load(name, []byte(src), runbook.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	dir, err = results.NewRunDir(parent, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err = engine.Run(context.Background(), engine.Options{Doc: doc, Dir: dir, Backend: backend, Out: &out})
	t.Cleanup(func() { t.Log(out.String()) }) // after the test's errors: see runWithClientDir
	if res != nil {
		recheckStored(t, dir, res)
	}
	return res, dir, out.String(), err
}

// recheckStored derives every tally of a run's evidence again from what
// it stored (results.Recheck on its events.jsonl) and wants each the same
// as the engine recorded: a checker judges the stored history, never the
// engine's memory.
func recheckStored(t *testing.T, dir string, res *results.Results) {
	t.Helper()
	stored, err := results.Replay(filepath.Join(dir, results.EventsFileName))
	if err != nil {
		t.Errorf("replaying the run's events: %v", err)
		return
	}
	rep := results.Recheck(stored)
	for _, d := range rep.Differences {
		t.Errorf("recheck: %s", d)
	}
	if rep.Underived > 0 {
		t.Errorf("recheck: %d tallies without their stored input", rep.Underived)
	}
}
