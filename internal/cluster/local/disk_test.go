package local_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

// TestDisk gives a one-node cluster on the layer each disk fault and
// checks it apart from the layer's own counts: a file written through
// the node's mount gets the errno a real disk of that kind gives (ENOSPC,
// EIO) or waits as long as the fault says; a full disk under an appending
// broker makes Kafka take the log directory offline and halt, in its own
// words; healed, the node starts on its data and takes writes again, and
// the layer says how many operations the fault refused.
func TestDisk(t *testing.T) {
	b, st, _ := startOnLayer(t, 1, nil, true)
	ctx := context.Background()
	disks := cluster.Backend(b).(cluster.Disks)
	probe := filepath.Join(nodeDir(t, b, "k1"), "data", "probe")
	put := func(f cluster.DiskFault) []cluster.DiskState {
		t.Helper()
		was, err := disks.Disk(ctx, []string{"k1"}, f)
		if err != nil {
			t.Fatal(err)
		}
		return was
	}
	bootstrap := kafka.Plain(st.Bootstrap()...)
	produce := func(topic string, count int) (acked int, err error) {
		_, err = kafka.Produce(ctx, bootstrap, kafka.ProduceSpec{Topic: topic, From: 1, Count: count, Size: 100, Properties: map[string]string{"acks": "all", "delivery.timeout.ms": "5000"}},
			func(r kafka.Result) {
				if r.Status == results.StatusOK {
					acked++
				}
			})
		return acked, err
	}
	admin, err := kafka.Dial(bootstrap)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: "d", Assignment: [][]int32{{1}}}); err != nil {
		t.Fatal(err)
	}
	if acked, err := produce("d", 100); acked != 100 {
		t.Fatalf("before the fault: %d of 100 acked (%v)", acked, err)
	}

	// Size: the mount says the size the fault gives it, and a write of
	// more than is left is cut short, then refused with ENOSPC. The
	// probe goes at once: the broker's own appends need the room.
	states, err := disks.DiskStates(ctx)
	if err != nil || len(states) != 1 || states[0].Used == 0 {
		t.Fatalf("DiskStates: %+v (%v), want k1's files taking space", states, err)
	}
	limit := states[0].Used + 1<<20
	put(cluster.DiskFault{Size: limit})
	var sfs syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(probe), &sfs); err != nil {
		t.Fatal(err)
	}
	p, err := os.Create(probe)
	if err != nil {
		t.Fatal(err)
	}
	n, werr := p.Write(make([]byte, 4<<20))
	p.Close()
	os.Remove(probe)
	if total := int64(sfs.Blocks) * sfs.Frsize; total != limit/sfs.Frsize*sfs.Frsize {
		t.Errorf("statfs on a %d-byte disk says %d bytes", limit, total)
	}
	if n == 0 || n > 1<<20 || !errors.Is(werr, syscall.ENOSPC) {
		t.Errorf("a 4 MiB write with 1 MiB left wrote %d bytes (%v), want at most 1 MiB, then ENOSPC", n, werr)
	} else {
		t.Logf("a 4 MiB write on a disk %s in size, %s taken, wrote %s, then %v", cluster.BytesText(limit), cluster.BytesText(states[0].Used), cluster.BytesText(int64(n)), werr)
	}

	// Slow: a write through the mount waits.
	const slow = 150 * time.Millisecond
	if was := put(cluster.DiskFault{Slow: slow}); len(was) != 1 || was[0].Fault.Size != limit || was[0].Refused == 0 {
		t.Errorf("the size-limited disk's state when replaced: %+v, want its size and the probe's write refused", was)
	}
	start := time.Now()
	if err := os.WriteFile(probe, []byte("slow"), 0o644); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < slow {
		t.Errorf("a write on a disk slowed by %v took %v", slow, took)
	} else {
		t.Logf("a write on a disk slowed by %v took %v", slow, took.Round(time.Millisecond))
	}

	// Full: a write gets ENOSPC, and the broker, appending, gives up its
	// only log directory and halts.
	was := put(cluster.DiskFault{Full: true})
	if len(was) != 1 || was[0].Delayed == 0 {
		t.Errorf("the slow disk's state when replaced: %+v, want writes delayed", was)
	}
	if err := os.WriteFile(probe, []byte("full"), 0o644); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("a write on a full disk: %v, want ENOSPC", err)
	}
	if acked, _ := produce("d", 10); acked != 0 {
		t.Errorf("%d of 10 acknowledged by a broker whose disk is full", acked)
	}
	t.Cleanup(func() {
		if t.Failed() {
			data, _ := os.ReadFile(filepath.Join(nodeDir(t, b, "k1"), "logs", "server.log"))
			for _, l := range strings.Split(string(data), "\n") {
				if strings.Contains(l, "ERROR") || strings.Contains(l, "WARN") || strings.Contains(l, "dir") && !strings.HasPrefix(l, "\t") {
					t.Log(l)
				}
			}
		}
	})
	// A combined node appends to the metadata log in the same directory:
	// whichever append meets the full disk first, Kafka says so and the
	// process ends (all log dirs failed, or raft's fatal fault handler).
	testcluster.WaitLog(t, b, "k1", "Error while appending records to", 30*time.Second)
	waitExited(t, b, "k1")

	states, err = disks.DiskStates(ctx)
	if err != nil || len(states) != 1 || !states[0].Fault.Full || states[0].Refused < 2 {
		t.Fatalf("DiskStates: %+v (%v), want k1 full with the probe's and the broker's writes refused", states, err)
	}
	did, landed := states[0].Landed()
	if !landed {
		t.Errorf("Landed: %q, not landed, with %d operations refused", did, states[0].Refused)
	}
	t.Logf("%s", did)

	// Heal, as between runs: the disk first, then the node.
	var said []string
	if err := cluster.BringBack(ctx, b, t.Logf, func(op cluster.Op, node string, was cluster.State) {
		said = append(said, string(op)+" "+node+" ("+string(was)+")")
	}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(said, ", "); got != "disk --heal k1 (full), start k1 (exited)" {
		t.Errorf("BringBack said %q", got)
	}
	testcluster.WaitPartition(t, admin, "d", "a leader", func(p kafka.Partition) bool { return p.Leader == 1 })
	if acked, err := produce("d", 100); acked != 100 {
		t.Errorf("after the heal: %d of 100 acked (%v)", acked, err)
	}
	read, err := kafka.ReadAll(ctx, bootstrap, "d", kafka.ReadOptions{Timeout: 60 * time.Second, Settle: 30 * time.Second, Quiet: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if n := read.Records.Len(); n != 200 {
		t.Errorf("the topic holds %d records after the heal, want the 200 acknowledged", n)
	}

	// Failed: a creation gets EIO.
	put(cluster.DiskFault{Fail: true})
	if _, err := os.Create(probe + "-2"); !errors.Is(err, syscall.EIO) {
		t.Errorf("a creation on a failed disk: %v, want EIO", err)
	}

	if err := cluster.BringBack(ctx, b, t.Logf, func(cluster.Op, string, cluster.State) {}); err != nil {
		t.Fatal(err)
	}
	if states, err := disks.DiskStates(ctx); err != nil || len(states) != 1 || states[0].Fault != (cluster.DiskFault{}) {
		t.Errorf("after BringBack: %+v (%v), want a healthy disk", states, err)
	}

	// A reset between runs makes the cluster new on a fresh layer: the
	// old data is gone, the new layer is mounted and takes writes.
	put(cluster.DiskFault{Slow: time.Millisecond})
	if err := b.Reset(ctx, t.Logf); err != nil {
		t.Fatal(err)
	}
	if m := layerMounts(t, os.Getenv("KAFKABOOK_STATE")); len(m) != 1 {
		t.Errorf("after a reset, layers mounted at %v, want one", m)
	}
	if states, err := disks.DiskStates(ctx); err != nil || len(states) != 1 || states[0].Fault != (cluster.DiskFault{}) {
		t.Errorf("after a reset: %+v (%v), want the fresh layer's healthy disk", states, err)
	}
	admin2, err := kafka.Dial(bootstrap)
	if err != nil {
		t.Fatal(err)
	}
	defer admin2.Close()
	// The reset starts the broker; it answers once it has registered.
	var names []string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if names, err = admin2.Topics(ctx); err == nil {
			break
		}
	}
	if err != nil || slices.Contains(names, "d") {
		t.Errorf("after a reset the cluster has topics %v (%v), want d gone", names, err)
	}
}

// waitExited waits until the backend reports node exited on its own.
func waitExited(t *testing.T, b cluster.Backend, node string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		st, err := b.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range st.Nodes {
			if n.Name == node && n.State == cluster.Exited {
				return
			}
		}
	}
	t.Fatalf("%s did not exit within 30s", node)
}
