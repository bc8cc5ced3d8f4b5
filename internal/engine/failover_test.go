package engine_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

// loadRunbook: a rate-driven acks=all producer with keys over two
// partitions, in the background while their leader is killed and started
// again. A short broker session
// lets the controller elect a new leader after about 3 s instead of 9.
const loadRunbook = "---\n" + `title: load through a failover
nodes: 3
broker:
  replica.lag.time.max.ms: 3000
  broker.session.timeout.ms: 3000
  broker.heartbeat.interval.ms: 500
repeat: 1
---
` + "```kafka" + `
topic create load --replicas 1:2:3,1:3:2 --config min.insync.replicas=2
produce load --acks all --rate 200/s --for 12s --size 64 --keys 8 &
sleep 3s
kill leader(load)
wait leader load in k2,k3 --timeout 60s
sleep 1s
start k1
wait producers --timeout 120s
expect lost(load) == 0
expect acked(load) == 2400
` + "```\n"

// TestLoadThroughFailover runs a scheduled background producer across a
// leader kill on a real cluster and checks the evidence: messages acked
// before and after the kill, the failover as a gap in the acks and as
// latency charged from the schedule, a quiet console, and events.jsonl
// that batches results and replays to the same verdict.
func TestLoadThroughFailover(t *testing.T) {
	// Its own configuration (fast fencing, so the failover fits the test's
	// time): the shared three-node cluster is taken down while it runs.
	backend, _ := testcluster.Shared(t, 3, map[string]string{
		"replica.lag.time.max.ms": "3000", "broker.session.timeout.ms": "3000", "broker.heartbeat.interval.ms": "500",
	})
	res, dir, out, err := runRunbook(t, backend, t.TempDir(), "load.md", loadRunbook)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run := res.Runs[0]
	allHeld(t, run)

	// The kill, and acknowledgements on both sides of it.
	var kill time.Time
	for _, f := range run.Faults {
		if f.Op == "kill" {
			kill = f.At
		}
	}
	if kill.IsZero() {
		t.Fatal("no kill in the evidence")
	}
	tp := run.Topics[0]
	if tp.Len() != 2400 {
		t.Fatalf("ledger of %d entries, want 2400", tp.Len())
	}
	var before, after int
	var acks []time.Time
	var maxLat time.Duration
	partitions := map[int32]bool{}
	for _, m := range tp.All() {
		if m.Status != results.StatusOK {
			continue
		}
		acks = append(acks, m.Acked)
		partitions[m.Partition] = true
		if m.Acked.Before(kill) {
			before++
		} else {
			after++
		}
		if d, _ := results.MessageLatency(m); d > maxLat {
			maxLat = d
		}
	}
	if len(partitions) != 2 {
		t.Errorf("acknowledged in partitions %v; want the 8 keys spread over both", partitions)
	}
	if before < 400 || after < 1000 {
		t.Errorf("acked %d before the kill and %d after; want both sides well filled", before, after)
	}
	// The failover window: no acknowledgement for over a second after the
	// kill, and messages scheduled in it charged for the wait.
	var gap time.Duration
	var gapAt time.Time
	for i := 1; i < len(acks); i++ {
		if d := acks[i].Sub(acks[i-1]); d > gap && !acks[i].Before(kill) {
			gap, gapAt = d, acks[i-1]
		}
	}
	if gap < time.Second || gapAt.Before(kill.Add(-time.Second)) {
		t.Errorf("largest gap between acks after the kill: %s at %s (kill at %s); want the failover, over 1 s", gap, gapAt.Sub(run.Start), kill.Sub(run.Start))
	}
	if maxLat < gap/2 {
		t.Errorf("max latency %s is less than half the failover gap %s: latency is not counted from the schedule", maxLat, gap)
	}
	t.Logf("acked %d before the kill, %d after; failover gap %s; max latency %s", before, after, gap, maxLat)

	// The leader moved, as the ISR samples show.
	var leaders []int32
	for _, s := range run.ISR {
		if len(leaders) == 0 || leaders[len(leaders)-1] != s.Leader {
			leaders = append(leaders, s.Leader)
		}
	}
	if len(leaders) < 2 || leaders[0] != 1 {
		t.Errorf("leaders over the run: %v; want 1 then another", leaders)
	}

	// Quiet: a summary, no line per message.
	if strings.Count(out, " ok offset=") > 0 || !strings.Contains(out, "acked 2400 of 2400") {
		t.Errorf("console lists messages or lacks the summary")
	}

	// events.jsonl: batches, no line per message; it replays to the same
	// ledger and verdict.
	f, err := results.OpenEvents(filepath.Join(dir, results.EventsFileName)) // archived once results.json loads
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kinds := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev results.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		kinds[ev.Kind]++
	}
	if kinds[results.KindMessage] != 0 || kinds[results.KindMessages] == 0 || kinds[results.KindMessages] > 2400/10 {
		t.Errorf("events: %d message lines, %d messages batches for 2400 messages", kinds[results.KindMessage], kinds[results.KindMessages])
	}
	replayed, err := results.Replay(filepath.Join(dir, results.EventsFileName))
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := replayed.Runs[0].Tally("load")
	ft, _ := run.Tally("load")
	if replayed.Runs[0].Topics[0].Len() != 2400 || rt.Present != ft.Present || len(rt.Lost) != len(ft.Lost) {
		t.Errorf("replay: %d entries, present %d lost %d; the run said present %d lost %d",
			replayed.Runs[0].Topics[0].Len(), rt.Present, len(rt.Lost), ft.Present, len(ft.Lost))
	}
	data, err := os.ReadFile(filepath.Join(dir, results.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"ledger": {`)) || bytes.Contains(data, []byte(`"messages": [`)) {
		t.Errorf("results.json does not hold the ledger in columns")
	}
}
