package testcluster

import (
	"bufio"
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
)

// Faults walks the acks article's fault sequence on a real cluster of
// three nodes, whatever its backend, and checks each effect with a client
// of its own: create 1:2:3 gives leader 1 and an ISR of 3; isolating k2
// and k3 cuts them off from the host, and once k1 takes writes alone it
// logs "Shrinking ISR"; killing
// k1 and rejoining k2 and k3 moves the leader to one of them; starting k1
// brings the ISR back to 3; a paused k3 leaves the ISR and catches up
// after resume; restart k3 is a stop and a start, after which the ISR is
// whole again; stop shows as stopped. Every node's log lines start with
// the ISO UTC time the engine reads.
func Faults(t *testing.T, b cluster.Backend, st cluster.Status) {
	ctx := context.Background()
	addr := func(n string) string { node, _ := st.Node(n); return node.Address }
	access, err := cluster.AccessOf(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	brokers := func(addrs ...string) kafka.Brokers { return kafka.Brokers{Seeds: addrs, Access: access} }
	dial := access.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	reach := func(n string) error {
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		c, err := dial(ctx, "tcp", addr(n))
		if err == nil {
			c.Close()
		}
		return err
	}

	admin, err := kafka.Dial(brokers(st.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	const topic = "faults"
	if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: topic, Assignment: [][]int32{{1, 2, 3}}}); err != nil {
		t.Fatal(err)
	}
	p := WaitPartition(t, admin, topic, "leader 1 with ISR [1 2 3]", func(p kafka.Partition) bool {
		return p.Leader == 1 && slices.Equal(p.ISR, []int32{1, 2, 3})
	})
	t.Logf("before faults: %s", p)

	// Isolate k2 and k3: the host cannot reach them, and k1 shrinks the ISR.
	Apply(t, b, cluster.Isolate, "k2", "k3")
	WantState(t, b, map[string]cluster.State{"k1": cluster.Running, "k2": cluster.Isolated, "k3": cluster.Isolated})
	for _, n := range []string{"k2", "k3"} {
		if err := reach(n); err == nil {
			t.Errorf("%s (%s) still reachable from the host after isolate", n, addr(n))
		}
	}
	if err := reach("k1"); err != nil {
		t.Errorf("k1 unreachable while only k2 and k3 are isolated: %v", err)
	}
	// A follower whose log is as long as the leader's is never out of sync:
	// write to k1 alone (acks=1), as the article did, so that k2 and k3
	// fall behind. These messages are lost once k1 is killed.
	var alone int
	_, err = kafka.Produce(ctx, brokers(addr("k1")), kafka.ProduceSpec{Topic: topic, From: 1001, Count: 5, Properties: map[string]string{"acks": "1", "delivery.timeout.ms": "20000"}},
		func(m kafka.Result) {
			if m.Status == results.StatusOK {
				alone++
			}
		})
	if err != nil || alone != 5 {
		t.Fatalf("produce to k1 alone: %d of 5 acked, err %v", alone, err)
	}
	line := WaitLog(t, b, "k1", "[Partition "+topic+"-0 broker=1] Shrinking ISR", 20*time.Second)
	if at, err := time.Parse("2006-01-02T15:04:05.000Z", strings.TrimPrefix(line, "[")[:min(24, len(line)-1)]); err != nil || time.Since(at) > time.Minute || time.Since(at) < -time.Minute {
		t.Errorf("k1's log line does not start with the current [ISO UTC time]: %q (%v)", line, err)
	}

	// Kill k1, rejoin k2 and k3: the leader moves to one of them.
	Apply(t, b, cluster.Kill, "k1")
	Apply(t, b, cluster.Rejoin, "k2", "k3")
	WantState(t, b, map[string]cluster.State{"k1": cluster.Killed, "k2": cluster.Running, "k3": cluster.Running})
	other, err := kafka.Dial(brokers(addr("k2"), addr("k3")))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	p = WaitPartition(t, other, topic, "leader 2 or 3", func(p kafka.Partition) bool { return p.Leader == 2 || p.Leader == 3 })
	t.Logf("after kill k1 and rejoin: %s", p)

	// Start k1 on its data: the ISR returns to three.
	Apply(t, b, cluster.Start, "k1")
	WaitPartition(t, other, topic, "an ISR of 3", func(p kafka.Partition) bool { return len(p.ISR) == 3 })

	// Pause k3 while messages arrive; after resume it catches up.
	Apply(t, b, cluster.Pause, "k3")
	WantState(t, b, map[string]cluster.State{"k3": cluster.Paused})
	var acked int
	_, err = kafka.Produce(ctx, brokers(st.Bootstrap()...), kafka.ProduceSpec{Topic: topic, From: 1, Count: 20, Properties: map[string]string{"acks": "1", "delivery.timeout.ms": "30000"}},
		func(m kafka.Result) {
			if m.Status == results.StatusOK {
				acked++
			}
		})
	if err != nil || acked != 20 {
		t.Fatalf("produce while k3 paused: %d of 20 acked, err %v", acked, err)
	}
	WaitPartition(t, other, topic, "k3 out of the ISR while paused", func(p kafka.Partition) bool { return !slices.Contains(p.ISR, 3) })
	Apply(t, b, cluster.Resume, "k3")
	WaitPartition(t, other, topic, "k3 back in the ISR", func(p kafka.Partition) bool { return slices.Contains(p.ISR, 3) })
	// Caught up: reading through k3 alone finds all 20.
	read, err := kafka.ReadAll(ctx, brokers(addr("k3")), topic, kafka.ReadOptions{Timeout: 30 * time.Second, Settle: 10 * time.Second, Quiet: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if read.Records.Len() != 20 || read.HW[0] != 20 {
		t.Errorf("after resume: read %d records, high watermark %d; want 20, 20", read.Records.Len(), read.HW[0])
	}

	// Restart is a stop, then a start, each landing as itself; the node
	// runs again on its data and the ISR comes back to three.
	var landed []string
	err = cluster.Apply(ctx, b, cluster.Restart, []string{"k3"}, t.Logf, func(op cluster.Op, nodes []string, _ time.Time) {
		landed = append(landed, string(op)+" "+strings.Join(nodes, " "))
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(landed, []string{"stop k3", "start k3"}) {
		t.Errorf("restart k3 landed as %q, want a stop and a start of k3", landed)
	}
	WantState(t, b, map[string]cluster.State{"k3": cluster.Running})
	WaitPartition(t, other, topic, "an ISR of 3 after the restart", func(p kafka.Partition) bool { return len(p.ISR) == 3 })

	// Stop is graceful and shows as stopped.
	Apply(t, b, cluster.Stop, "k2")
	WantState(t, b, map[string]cluster.State{"k2": cluster.Stopped})

	// The walk above applies every node operation of the fault table
	// (cluster.Faults, each with its directive's row): a new one needs its
	// step here.
	walked := []cluster.Op{cluster.Isolate, cluster.Kill, cluster.Rejoin, cluster.Start, cluster.Pause, cluster.Resume, cluster.Restart, cluster.Stop}
	for _, f := range cluster.Faults {
		if !slices.Contains(walked, f.Op) {
			t.Errorf("node operation %s of the fault table is not walked by testcluster.Faults", f.Op)
		}
	}
}

// Apply performs op on nodes or fails the test; on a backend that reads
// what an op left from the nodes (cluster.Observer), what they show must
// confirm it, so that the fault table checks each backend's reading too.
func Apply(t *testing.T, b cluster.Backend, op cluster.Op, nodes ...string) {
	t.Helper()
	if err := b.Apply(context.Background(), op, nodes, t.Logf); err != nil {
		t.Fatal(err)
	}
	if o, ok := b.(cluster.Observer); ok {
		said, landed, err := o.Observe(context.Background(), op, nodes)
		if err != nil || !landed {
			t.Errorf("after %s %v the nodes show %q (%v): the op did not land as far as they show", op, nodes, said, err)
		} else if said != "" {
			t.Logf("%s %v observed: %s", op, nodes, said)
		}
	}
}

// WantState checks the states of the named nodes.
func WantState(t *testing.T, b cluster.Backend, want map[string]cluster.State) {
	t.Helper()
	st, err := b.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range st.Nodes {
		if w, ok := want[n.Name]; ok && n.State != w {
			t.Errorf("%s is %s, want %s", n.Name, n.State, w)
		}
	}
}

// WaitPartition waits up to a minute for the topic's only partition to
// satisfy ok.
func WaitPartition(t *testing.T, c *kafka.Client, topic, what string, ok func(kafka.Partition) bool) kafka.Partition {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last kafka.Partition
	var lastErr error
	for time.Now().Before(deadline) {
		parts, err := c.Partitions(context.Background(), topic)
		if err == nil && len(parts) == 1 {
			last = parts[0]
			if ok(last) {
				return last
			}
		}
		lastErr = err
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no %s within 60s; last seen %s (err %v)", what, last, lastErr)
	return last
}

// WaitLog waits for a line of a node's log (through the backend's Logs)
// holding substr, and returns it.
func WaitLog(t *testing.T, b cluster.Backend, node, substr string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		rc, err := b.Logs(context.Background(), node)
		if err == nil {
			sc := bufio.NewScanner(rc)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				if strings.Contains(sc.Text(), substr) {
					rc.Close()
					t.Logf("%s log: %s", node, sc.Text())
					return sc.Text()
				}
			}
			rc.Close()
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s's log shows no %q within %s", node, substr, within)
	return ""
}
