package engine_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/engine"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const acksRunbook = "---\n" + `title: acks test
nodes: 3
broker:
  replica.lag.time.max.ms: 3000
repeat: 2
---
` + "```kafka" + `
topic create acks1 --replicas 1:2:3
produce acks1 --acks 1 --count 10
isolate k2 k3
produce acks1 --acks 1 --from 11 --count 10
kill k1
rejoin k2 k3
wait leader acks1 in k2,k3 --timeout 90s
read acks1 --via k2
expect lost(acks1) > 0
start k1
wait healthy --timeout 120s
topic create acksall --replicas 1:2:3
produce acksall --acks all --count 10
isolate k2 k3
produce acksall --acks all --from 11 --count 10 --timeout 150s &
sleep 3s
kill k1
rejoin k2 k3
wait leader acksall in k2,k3 --timeout 90s
wait producers --timeout 150s
read acksall --via k2
expect lost(acksall) == 0
expect acked(acksall) == 20
` + "```\n"

// TestAcksExperiment runs the article's two experiments twice on a real
// cluster and checks the engine's claims with a reader of the test's own.
func TestAcksExperiment(t *testing.T) {
	backend, st := testcluster.Start(t, 3, map[string]string{"replica.lag.time.max.ms": "3000"})
	doc, err := runbook.Load("acks.md", []byte(acksRunbook), runbook.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "evidence")
	var console bytes.Buffer
	res, err := engine.Run(context.Background(), engine.Options{Doc: doc, Dir: dir, Backend: backend, Out: &console})
	t.Log(console.String())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(res.Runs) != 2 || !res.Complete {
		t.Fatalf("%d runs, complete %v; want 2 complete runs", len(res.Runs), res.Complete)
	}

	// The evidence on disk says the same as the returned results.
	loaded, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if held, runs := loaded.Verdict(); held != 2 || runs != 2 {
		t.Errorf("results.json verdict: %d of %d runs held, want 2 of 2", held, runs)
	}

	var names []string
	for _, run := range res.Runs {
		for _, topic := range run.Topics {
			names = append(names, topic.Name)
		}
		acks1, _ := run.Tally("acks1")
		acksall, _ := run.Tally("acksall")

		// acks=1: lost is exactly the acked ids the independent reader
		// does not find.
		found := independentRead(t, st.Bootstrap(), acks1.Topic)
		var want []string
		for _, m := range run.Messages("acks1") {
			if m.Status == results.StatusOK && !found[m.ID] {
				want = append(want, m.ID)
			}
		}
		if len(acks1.Lost) == 0 || !slices.Equal(acks1.Lost, want) {
			t.Errorf("run %d acks1: tally lost %v, independent reader misses acked %v", run.Number, acks1.Lost, want)
		}

		// acks=all: nothing acked is missing, all 20 acked, and the second
		// batch was acknowledged only after the leader moved.
		found = independentRead(t, st.Bootstrap(), acksall.Topic)
		if len(acksall.Lost) != 0 || acksall.Acked != 20 {
			t.Errorf("run %d acksall: lost %v, acked %d; want none lost, 20 acked", run.Number, acksall.Lost, acksall.Acked)
		}
		for _, m := range run.Messages("acksall") {
			if m.Status == results.StatusOK && !found[m.ID] {
				t.Errorf("run %d acksall: %s acked but the independent reader does not find it", run.Number, m.ID)
			}
		}
		kill := lastFault(run, "kill")
		for _, m := range run.Messages("acksall")[10:] {
			if !m.Acked.After(kill) {
				t.Errorf("run %d acksall: %s acked at %s, before k1 was killed at %s", run.Number, m.ID, m.Acked, kill)
			}
		}
		if len(run.ISR) == 0 {
			t.Errorf("run %d: no ISR samples", run.Number)
		}
		for i := 1; i < len(run.ISR); i++ {
			if gap := run.ISR[i].At.Sub(run.ISR[i-1].At); gap > 2*time.Second {
				t.Logf("run %d: ISR samples %s apart at %s (a broker was unreachable)", run.Number, gap, run.ISR[i].At)
			}
		}
	}
	// Runs never share a topic.
	slices.Sort(names)
	if len(slices.Compact(slices.Clone(names))) != 4 {
		t.Errorf("topics of the two runs are not distinct: %v", names)
	}
}

func lastFault(run results.Run, op string) time.Time {
	var at time.Time
	for _, f := range run.Faults {
		if f.Op == op {
			at = f.At
		}
	}
	return at
}

// independentRead reads a topic to its high watermark with a client of the
// test's own and returns the ids it found.
func independentRead(t *testing.T, seeds []string, topic string) map[string]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	hw := ends[topic][0].Offset
	found := map[string]bool{}
	for next := int64(0); next < hw; {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("independent read of %s: %v at offset %d of %d", topic, ctx.Err(), next, hw)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset < hw {
				found[string(r.Value)] = true
			}
			next = max(next, r.Offset+1)
		})
	}
	if !strings.HasPrefix(topic, "acks") {
		t.Fatalf("unexpected topic %s", topic)
	}
	return found
}
