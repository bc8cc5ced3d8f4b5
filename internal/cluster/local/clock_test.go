package local_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// startClock is testcluster.Start for a cluster whose brokers run with
// libfaketime preloaded (or not, for a comparison); it returns how long
// the cluster took to come up.
func startClock(t *testing.T, nodes int, broker map[string]string, clock bool) (*local.Backend, cluster.Status, time.Duration) {
	t.Helper()
	testcluster.Require(t)
	if m := local.ClockMissing(); clock && m != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("clock needs %s; CI must provide it (scripts/install-deps.sh installs it)", m)
		}
		t.Skipf("clock needs %s", m)
	}
	t.Setenv("KAFKABOOK_STATE", t.TempDir())
	name := testcluster.Name()
	b, err := local.New(name)
	if err != nil {
		t.Fatal(err)
	}
	logf := func(format string, args ...any) { t.Logf(name+": "+format, args...) }
	t.Cleanup(func() {
		if err := b.Down(context.Background(), logf); err != nil {
			t.Errorf("cluster down: %v", err)
		}
		for _, l := range b.Leftovers() {
			t.Errorf("after down, %s remains", l)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	st, err := b.Up(ctx, cluster.Config{Name: name, Kafka: testcluster.Version(), Nodes: nodes, Broker: broker, Clock: clock, Ready: testcluster.Ready}, logf)
	if err != nil {
		t.Fatalf("cluster up: %v", err)
	}
	return b, st, time.Since(start)
}

// TestClock steps the wall clock of a one-node cluster's broker and reads
// it back apart from what kafkabook wrote: the timestamp the broker puts
// on a record of a LogAppendTime topic, against this host's clock. Then
// the retention it reaches: records acknowledged on a topic with
// retention.ms of two minutes stay while the clock is right, and go, in
// the broker's own words, once its clock jumps an hour ahead. The heal
// between runs puts the clock right.
func TestClock(t *testing.T) {
	testcluster.FullTier(t) // the fast tier keeps the clock's checks (TestCheckClock); clock-jump.md runs it end to end in the full tier
	b, st, boot := startClock(t, 1, map[string]string{"log.retention.check.interval.ms": "1000"}, true)
	t.Logf("1 node up with libfaketime in %.1fs", boot.Seconds())
	t.Cleanup(func() {
		if t.Failed() {
			data, _ := os.ReadFile(filepath.Join(nodeDir(t, b, "k1"), "logs", "server.log"))
			for _, l := range strings.Split(string(data), "\n") {
				if strings.Contains(l, "ERROR") || strings.Contains(l, "WARN") {
					t.Log(l)
				}
			}
		}
	})
	ctx := context.Background()
	bootstrap := kafka.Plain(st.Bootstrap()...)
	admin, err := kafka.Dial(bootstrap)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := admin.EnsureTopic(ctx, kafka.ClockTopic("clock", 1)); err != nil {
		t.Fatal(err)
	}
	jump := func(d time.Duration, reset bool) {
		t.Helper()
		if _, err := b.Clock(ctx, []string{"k1"}, d, reset); err != nil {
			t.Fatal(err)
		}
	}
	testcluster.ReadClock(t, bootstrap, 0)

	// Retention: acknowledged records, kept while the clock is right.
	if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: "r", Assignment: [][]int32{{1}}, Configs: map[string]string{"retention.ms": "120000"}}); err != nil {
		t.Fatal(err)
	}
	acked := 0
	if _, err := kafka.Produce(ctx, bootstrap, kafka.ProduceSpec{Topic: "r", From: 1, Count: 100, Size: 100, Properties: map[string]string{"acks": "all"}},
		func(r kafka.Result) {
			if r.Status == results.StatusOK {
				acked++
			}
		}); err != nil || acked != 100 {
		t.Fatalf("%d of 100 acked (%v)", acked, err)
	}
	time.Sleep(3 * time.Second) // three retention checks
	if start := logStart(t, "r", bootstrap); start != 0 {
		t.Fatalf("log start offset %d before the jump: retention deleted records while the clock was right", start)
	}
	jump(time.Hour, false)
	testcluster.ReadClock(t, bootstrap, time.Hour)
	line := testcluster.WaitLog(t, b, "k1", "due to log retention time 120000ms breach", 30*time.Second)
	t.Logf("k1: %s", line)
	var start int64
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && start < 100; time.Sleep(250 * time.Millisecond) {
		start = logStart(t, "r", bootstrap)
	}
	if start != 100 {
		t.Errorf("log start offset %d after the jump, want 100: the acknowledged records still there", start)
	}
	end, err := admin.EndOffsets(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after k1's clock jumped +1h: log start offset %d, end offset %d: %d of 100 acknowledged records left", start, end[0], end[0]-start)

	jump(-30*time.Minute, false)
	testcluster.ReadClock(t, bootstrap, 30*time.Minute)
	jump(0, true)
	testcluster.ReadClock(t, bootstrap, 0)
	jump(time.Hour, false)
	testcluster.ReadClock(t, bootstrap, time.Hour)

	// The heal between runs puts the clock right.
	var said []string
	if err := cluster.BringBack(ctx, b, t.Logf, func(op cluster.Op, node string, was cluster.State) {
		said = append(said, string(op)+" "+node+" ("+string(was)+")")
	}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(said, ", "); got != "clock --reset k1 (+1h0m0s)" {
		t.Errorf("BringBack said %q", got)
	}
	testcluster.ReadClock(t, bootstrap, 0)
}

// logStart is the log start offset of topic's partition 0.
func logStart(t *testing.T, topic string, b kafka.Brokers) int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Seeds...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	offs, err := kadm.NewClient(cl).ListStartOffsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := offs.Lookup(topic, 0)
	if !ok || o.Err != nil {
		t.Fatalf("log start offset of %s: %+v", topic, o)
	}
	return o.Offset
}
