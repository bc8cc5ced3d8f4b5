package local_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/cluster"
	"github.com/kafkabook/kafkabook/cluster/local"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/kafka"
	"github.com/kafkabook/kafkabook/results"
)

// TestFaults walks the acks article's fault sequence on a real cluster and
// checks each effect with a client of its own.
func TestFaults(t *testing.T) {
	b, st := testcluster.Start(t, 3, map[string]string{"replica.lag.time.max.ms": "3000"})
	ctx := context.Background()
	addr := func(n string) string { node, _ := st.Node(n); return node.Address }

	admin, err := kafka.Dial(st.Bootstrap()...)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	const topic = "faults"
	if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: topic, Assignment: [][]int32{{1, 2, 3}}}); err != nil {
		t.Fatal(err)
	}
	p := waitPartition(t, admin, topic, "leader 1 with ISR [1 2 3]", func(p kafka.Partition) bool {
		return p.Leader == 1 && slices.Equal(p.ISR, []int32{1, 2, 3})
	})
	t.Logf("before faults: %s", p)

	// Isolate k2 and k3: the host cannot reach them, and k1 shrinks the ISR.
	apply(t, b, cluster.Isolate, "k2", "k3")
	wantState(t, b, map[string]cluster.State{"k1": cluster.Running, "k2": cluster.Isolated, "k3": cluster.Isolated})
	for _, n := range []string{"k2", "k3"} {
		if c, err := net.DialTimeout("tcp", addr(n), time.Second); err == nil {
			c.Close()
			t.Errorf("%s (%s) still reachable from the host after isolate", n, addr(n))
		}
	}
	if c, err := net.DialTimeout("tcp", addr("k1"), time.Second); err != nil {
		t.Errorf("k1 unreachable while only k2 and k3 are isolated: %v", err)
	} else {
		c.Close()
	}
	waitLog(t, b, "k1", "[Partition "+topic+"-0 broker=1] Shrinking ISR", 20*time.Second)

	// Kill k1, rejoin k2 and k3: the leader moves to one of them.
	apply(t, b, cluster.Kill, "k1")
	apply(t, b, cluster.Rejoin, "k2", "k3")
	wantState(t, b, map[string]cluster.State{"k1": cluster.Killed, "k2": cluster.Running, "k3": cluster.Running})
	other, err := kafka.Dial(addr("k2"), addr("k3"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	p = waitPartition(t, other, topic, "leader 2 or 3", func(p kafka.Partition) bool { return p.Leader == 2 || p.Leader == 3 })
	t.Logf("after kill k1 and rejoin: %s", p)

	// Start k1 on its data: the ISR returns to three.
	apply(t, b, cluster.Start, "k1")
	waitPartition(t, other, topic, "an ISR of 3", func(p kafka.Partition) bool { return len(p.ISR) == 3 })

	// Pause k3 while messages arrive; after resume it catches up.
	apply(t, b, cluster.Pause, "k3")
	wantState(t, b, map[string]cluster.State{"k3": cluster.Paused})
	var acked int
	err = kafka.Produce(ctx, st.Bootstrap(), kafka.ProduceSpec{Topic: topic, Acks: "1", From: 1, Count: 20, Timeout: 30 * time.Second},
		func(m results.Message) {
			if m.Status == results.StatusOK {
				acked++
			}
		})
	if err != nil || acked != 20 {
		t.Fatalf("produce while k3 paused: %d of 20 acked, err %v", acked, err)
	}
	waitPartition(t, other, topic, "k3 out of the ISR while paused", func(p kafka.Partition) bool { return !slices.Contains(p.ISR, 3) })
	apply(t, b, cluster.Resume, "k3")
	waitPartition(t, other, topic, "k3 back in the ISR", func(p kafka.Partition) bool { return slices.Contains(p.ISR, 3) })
	// Caught up: reading through k3 alone finds all 20.
	read, err := kafka.ReadAll(ctx, []string{addr("k3")}, topic, kafka.ReadOptions{Timeout: 30 * time.Second, Settle: 10 * time.Second, Quiet: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(read.Records) != 20 || read.HW[0] != 20 {
		t.Errorf("after resume: read %d records, high watermark %d; want 20, 20", len(read.Records), read.HW[0])
	}

	// Stop is graceful and shows as stopped.
	apply(t, b, cluster.Stop, "k2")
	wantState(t, b, map[string]cluster.State{"k2": cluster.Stopped})
}

// TestDownNamesWhatItCannotRemove: down removes what is mounted into the
// cluster's directory without deleting through the mount, names a mount of
// a node's namespace that it did not make (and so leaves), keeps the
// cluster's record, and a later down, once that mount is gone, succeeds.
func TestDownNamesWhatItCannotRemove(t *testing.T) {
	b, st := testcluster.Start(t, 1, nil)
	ctx := context.Background()
	logPath, err := b.LogPath("k1")
	if err != nil {
		t.Fatal(err)
	}
	nodeDir := filepath.Dir(filepath.Dir(logPath))

	// Someone's directory mounted into the cluster's: down must unmount it,
	// not empty it.
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "keep"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	into := filepath.Join(nodeDir, "mounted")
	mustRun(t, "mkdir", "-p", into)
	mustRun(t, "mount", "--bind", src, into)
	t.Cleanup(func() { exec.Command("umount", "-l", into).Run() })

	// The node's namespace mounted somewhere else keeps it alive.
	hold := filepath.Join(t.TempDir(), "netns")
	mustRun(t, "touch", hold)
	mustRun(t, "mount", "--bind", "/run/netns/kb-"+st.Name+"-k1", hold)
	t.Cleanup(func() { exec.Command("umount", "-l", hold).Run() })

	var said []string
	err = b.Down(ctx, func(format string, args ...any) {
		said = append(said, fmt.Sprintf(format, args...))
		t.Logf(format, args...)
	})
	// The node killed is waited for, not taken for a stray and killed again.
	if !slices.Equal(said, []string{fmt.Sprintf("killing k1 (pid %d)", st.Nodes[0].PID)}) {
		t.Errorf("down said %q, want only that it killed k1", said)
	}
	var le *local.LeftoverError
	if !errors.As(err, &le) {
		t.Fatalf("down with the namespace of k1 mounted at %s: %v, want a *LeftoverError", hold, err)
	}
	t.Logf("down: %v", err)
	if len(le.Leftovers) != 1 || !strings.Contains(le.Leftovers[0].What, "mount of the network namespace of k1 at "+hold) || le.Leftovers[0].Fix != "umount -l "+hold {
		t.Errorf("leftovers %q, want the mount at %s and how to remove it", le.Leftovers, hold)
	}
	if data, err := os.ReadFile(filepath.Join(src, "keep")); err != nil || string(data) != "mine" {
		t.Errorf("down deleted through a mount: %s is %q, %v", filepath.Join(src, "keep"), data, err)
	}
	if _, err := b.Status(ctx); err != nil {
		t.Errorf("after a down that left something, the cluster's record is gone: %v", err)
	}

	mustRun(t, "umount", hold)
	if err := b.Down(ctx, t.Logf); err != nil {
		t.Fatalf("second down: %v", err)
	}
	if left := b.Leftovers(); len(left) > 0 {
		t.Fatalf("after down: %v", left)
	}
	// Idempotent.
	if err := b.Down(ctx, t.Logf); err != nil {
		t.Fatalf("third down: %v", err)
	}
}

func mustRun(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func apply(t *testing.T, b cluster.Backend, op cluster.Op, nodes ...string) {
	t.Helper()
	if err := b.Apply(context.Background(), op, nodes, t.Logf); err != nil {
		t.Fatal(err)
	}
}

func wantState(t *testing.T, b cluster.Backend, want map[string]cluster.State) {
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

func waitPartition(t *testing.T, c *kafka.Client, topic, what string, ok func(kafka.Partition) bool) kafka.Partition {
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

func waitLog(t *testing.T, b *local.Backend, node, substr string, within time.Duration) {
	t.Helper()
	path, err := b.LogPath(node)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		f, err := os.Open(path)
		if err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if strings.Contains(sc.Text(), substr) {
					f.Close()
					t.Logf("%s log: %s", node, sc.Text())
					return
				}
			}
			f.Close()
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s's log shows no %q within %s", node, substr, within)
}
