package local_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/powerfs"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kgo"
)

// startOnLayer is testcluster.Start for a cluster whose data sits on the
// power-loss layer (or not, for a comparison). It registers the removal
// and a check that nothing remains, no mount above all, and returns how
// long the cluster took to come up.
func startOnLayer(t *testing.T, nodes int, broker map[string]string, layer bool) (*local.Backend, cluster.Status, time.Duration) {
	t.Helper()
	testcluster.Require(t)
	if layer {
		if m := powerfs.Missing(); m != "" {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the power-loss layer needs %s; CI must provide it", m)
			}
			t.Skipf("the power-loss layer needs %s", m)
		}
	}
	t.Setenv("KAFKABOOK_STATE", t.TempDir())
	name := testcluster.Name()
	b, err := local.New(name)
	if err != nil {
		t.Fatal(err)
	}
	logf := func(format string, args ...any) { t.Logf(name+": "+format, args...) }
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root := os.Getenv("KAFKABOOK_STATE")
	t.Cleanup(func() {
		if err := b.Down(context.Background(), logf); err != nil {
			t.Errorf("cluster down: %v", err)
		}
		for _, l := range b.Leftovers() {
			t.Errorf("after down, %s remains", l)
		}
		if m := layerMounts(t, root); len(m) > 0 {
			t.Errorf("after down, power-loss layers are still mounted at %v", m)
		}
	})
	start := time.Now()
	st, err := b.Up(ctx, cluster.Config{Name: name, Kafka: testcluster.Version(), Nodes: nodes, Broker: broker, PowerLoss: layer, Ready: testcluster.Ready}, logf)
	if err != nil {
		t.Fatalf("cluster up: %v", err)
	}
	return b, st, time.Since(start)
}

// layerMounts lists the mounts of the layer's type under dir.
func layerMounts(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		for i, fld := range fields {
			if fld == "-" && i+1 < len(fields) && fields[i+1] == powerfs.FSType && len(fields) > 4 && strings.HasPrefix(fields[4], dir+"/") {
				out = append(out, fields[4])
			}
		}
	}
	return out
}

// nodeDir is where node's files are, from its log's path.
func nodeDir(t *testing.T, b *local.Backend, node string) string {
	t.Helper()
	p, err := b.LogPath(node)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(p))
}

// TestPowerLoss: Kafka starts on the layer and (in the full tier) passes
// the fault table; then all three nodes lose power at once after acks=all writes to two
// topics. The topic that fsyncs every message (flush.messages=1) keeps
// them all; the other, whose writes Kafka leaves to the page cache, loses
// what it was acknowledged. At down nothing is left mounted.
func TestPowerLoss(t *testing.T) {
	b, st, boot := startOnLayer(t, 3, map[string]string{"replica.lag.time.max.ms": "3000"}, true)
	t.Logf("3 nodes up on the power-loss layer in %.1fs", boot.Seconds())
	root := os.Getenv("KAFKABOOK_STATE")
	if m := layerMounts(t, root); len(m) != 3 {
		t.Fatalf("layers mounted at %v, want one per node", m)
	}
	if testcluster.Full() {
		// The fault table on the layer: the fast tier runs it on the
		// plain local backend (TestFaults) and leaves the layer's pass
		// to the full tier, as it leaves the power-loss example.
		testcluster.Faults(t, b, st)
		testcluster.Apply(t, b, cluster.Start, "k2") // the table ends with k2 stopped
	}

	ctx := context.Background()
	admin, err := kafka.Dial(kafka.Plain(st.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	topics := map[string]map[string]string{
		"lossy":   {"min.insync.replicas": "2"},
		"flushed": {"min.insync.replicas": "2", "flush.messages": "1"},
	}
	for name, cfg := range topics {
		if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: name, Assignment: [][]int32{{1, 2, 3}}, Configs: cfg}); err != nil {
			t.Fatal(err)
		}
		testcluster.WaitPartition(t, admin, name, "an ISR of 3", func(p kafka.Partition) bool { return len(p.ISR) == 3 })
	}
	const count = 200
	for name := range topics {
		acked := 0
		_, err := kafka.Produce(ctx, kafka.Plain(st.Bootstrap()...), kafka.ProduceSpec{Topic: name, From: 1, Count: count, Size: 100, Properties: map[string]string{"acks": "all", "delivery.timeout.ms": "30000"}},
			func(r kafka.Result) {
				if r.Status == results.StatusOK {
					acked++
				}
			})
		if err != nil || acked != count {
			t.Fatalf("%s: %d of %d acked (%v)", name, acked, count, err)
		}
	}

	pl := cluster.Backend(b).(cluster.PowerLoss)
	dropped, err := pl.PowerLoss(ctx, []string{"k1", "k2", "k3"}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dropped: %+v", dropped)
	for _, d := range dropped {
		if d.Bytes == 0 {
			t.Errorf("%s dropped nothing, though the lossy topic was never fsynced", d.Node)
		}
	}
	testcluster.WantState(t, b, map[string]cluster.State{"k1": cluster.Killed, "k2": cluster.Killed, "k3": cluster.Killed})
	if m := layerMounts(t, root); len(m) != 0 {
		t.Errorf("layers still mounted after the power loss: %v", m)
	}
	// What is left on disk is what was durable: the flushed topic's
	// segment holds its records, the lossy topic's does not.
	for name, want := range map[string]bool{"lossy": false, "flushed": true} {
		seg := filepath.Join(nodeDir(t, b, "k1"), "durable", name+"-0", "00000000000000000000.log")
		fi, err := os.Stat(seg)
		if got := err == nil && fi.Size() > 0; got != want {
			t.Errorf("k1's durable %s: size %v (%v); want records: %v", seg, fi.Size(), err, want)
		}
	}

	testcluster.Apply(t, b, cluster.Start, "k1", "k2", "k3")
	testcluster.WantState(t, b, map[string]cluster.State{"k1": cluster.Running, "k2": cluster.Running, "k3": cluster.Running})
	if m := layerMounts(t, root); len(m) != 3 {
		t.Errorf("after start, layers mounted at %v, want one per node", m)
	}
	for name, want := range map[string]int{"lossy": 0, "flushed": count} {
		testcluster.WaitPartition(t, admin, name, "a leader", func(p kafka.Partition) bool { return p.Leader > 0 })
		read, err := kafka.ReadAll(ctx, kafka.Plain(st.Bootstrap()...), name, kafka.ReadOptions{Timeout: 60 * time.Second, Settle: 30 * time.Second, Quiet: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if read.Records.Len() != want {
			t.Errorf("%s after the power loss: %d of %d acknowledged records left, want %d", name, read.Records.Len(), count, want)
		}
	}
}

// TestPowerLossLeftovers: a crash that leaves the layer dead (its mount
// answering ENOTCONN) or alive but unrecorded (the state file lost) still
// leaves nothing behind once down has run.
func TestPowerLossLeftovers(t *testing.T) {
	b, st, _ := startOnLayer(t, 1, nil, true)
	dir := nodeDir(t, b, "k1")
	state := filepath.Join(filepath.Dir(dir), "state.json")
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var layerPID int
	if i := strings.Index(string(data), `"layer": {`); i >= 0 {
		fmt.Sscanf(string(data[i:]), `"layer": {
      "pid": %d`, &layerPID)
	}
	if layerPID == 0 {
		t.Fatalf("no layer recorded in %s", data)
	}
	// The layer dies, the JVM is left on a dead mount, and the record of
	// both is gone: down must find them by name.
	if err := syscall.Kill(layerPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := os.ReadDir(filepath.Join(dir, "data")); err == nil {
		t.Errorf("the data directory still answers with its layer killed")
	}
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	var said []string
	if err := b.Down(context.Background(), func(format string, args ...any) {
		said = append(said, fmt.Sprintf(format, args...))
		t.Logf(format, args...)
	}); err != nil {
		t.Fatalf("down: %v", err)
	}
	if !strings.Contains(strings.Join(said, "\n"), fmt.Sprintf("killing stray JVM (pid %d)", st.Nodes[0].PID)) {
		t.Errorf("down said %q, want that it killed the JVM it had lost track of", said)
	}
}

// TestPowerLossCost measures what the layer costs: the same acks=all
// producer (incompressible 1 KiB values, no compression) on a cluster
// without the layer and on one with it, one after the other, three rounds
// each, and the boot time of each. It runs when KAFKABOOK_MEASURE=1.
func TestPowerLossCost(t *testing.T) {
	if os.Getenv("KAFKABOOK_MEASURE") != "1" {
		t.Skip("set KAFKABOOK_MEASURE=1 to measure the power-loss layer's cost")
	}
	const count, size = 100000, 1024
	value := make([]byte, size)
	rand.Read(value)
	for _, layer := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "layer"}[layer], func(t *testing.T) {
			_, st, boot := startOnLayer(t, 3, nil, layer)
			ctx := context.Background()
			admin, err := kafka.Dial(kafka.Plain(st.Bootstrap()...))
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close()
			if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: "cost", Assignment: [][]int32{{1, 2, 3}}, Configs: map[string]string{"min.insync.replicas": "2"}}); err != nil {
				t.Fatal(err)
			}
			testcluster.WaitPartition(t, admin, "cost", "an ISR of 3", func(p kafka.Partition) bool { return len(p.ISR) == 3 })
			cl, err := kgo.NewClient(kgo.SeedBrokers(st.Bootstrap()...), kgo.DefaultProduceTopic("cost"),
				kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DisableIdempotentWrite(), kgo.ProducerBatchCompression(kgo.NoCompression()))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			round := func(n int) time.Duration {
				start := time.Now()
				for range n {
					cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
						if err != nil {
							t.Errorf("produce: %v", err)
						}
					})
				}
				if err := cl.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				return time.Since(start)
			}
			round(10000) // warm up the JVMs and the connections
			var rates []string
			for range 3 {
				took := round(count)
				rates = append(rates, fmt.Sprintf("%.0f msg/s (%.1f MiB/s)", float64(count)/took.Seconds(), float64(count*size)/took.Seconds()/(1<<20)))
			}
			t.Logf("layer=%v: boot %.1fs; %d acks=all messages of %d bytes, three rounds: %s", layer, boot.Seconds(), count, size, strings.Join(rates, ", "))
		})
	}
}
