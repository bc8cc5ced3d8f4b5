package local_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

// TestCorrupt damages a one-node cluster's only replica, and checks the
// damage by reading the segment's bytes back, apart from what Corrupt
// says it did: inverted bytes are the old ones inverted, at exactly the
// offsets it names, and a cut tail leaves the size it names. Then Kafka's
// side: after a clean stop the broker trusts its log and does not look;
// after a kill it recovers the segment, says it found the corruption, and
// what it cut is gone from the only replica.
func TestCorrupt(t *testing.T) {
	testcluster.FullTier(t) // the fast tier runs corrupt on the shared cluster (TestEveryDirectiveOnCluster), the file and offsets in its observed
	b, st := testcluster.Start(t, 1, nil)
	ctx := context.Background()
	bootstrap := kafka.Plain(st.Bootstrap()...)
	admin, err := kafka.Dial(bootstrap)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: "c", Assignment: [][]int32{{1}}}); err != nil {
		t.Fatal(err)
	}
	acked := 0
	if _, err := kafka.Produce(ctx, bootstrap, kafka.ProduceSpec{Topic: "c", From: 1, Count: 200, Size: 100, Properties: map[string]string{"acks": "all", "linger.ms": "0"}},
		func(r kafka.Result) {
			if r.Status == results.StatusOK {
				acked++
			}
		}); err != nil || acked != 200 {
		t.Fatalf("%d of 200 acked (%v)", acked, err)
	}
	p, err := b.LogPath("k1")
	if err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(filepath.Dir(filepath.Dir(p)), "data", "c-0", "00000000000000000000.log")
	co := cluster.Backend(b).(cluster.Corrupter)

	if _, err := co.Corrupt(ctx, "k1", cluster.Corruption{Dir: "c-0", Flip: 1}); err == nil {
		t.Error("Corrupt on a running node succeeded")
	}
	testcluster.Apply(t, b, cluster.Stop, "k1")
	before, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	done, err := co.Corrupt(ctx, "k1", cluster.Corruption{Dir: "c-0", Flip: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", done)
	after, _ := os.ReadFile(seg)
	if len(after) != len(before) || done.Size != int64(len(before)) || len(done.Flipped) != 3 {
		t.Fatalf("after the flips: %d bytes, was %d; Corrupt says %+v", len(after), len(before), done)
	}
	var differ []int64
	for i := range before {
		if before[i] != after[i] {
			differ = append(differ, int64(i))
			if after[i] != ^before[i] {
				t.Errorf("byte %d: %#x, was %#x: not inverted", i, after[i], before[i])
			}
		}
	}
	if fmt.Sprint(differ) != fmt.Sprint(done.Flipped) {
		t.Errorf("bytes changed at %v, Corrupt says %v", differ, done.Flipped)
	}
	for _, o := range done.Flipped {
		if o < int64(len(before))-4096 {
			t.Errorf("flip at %d, outside the segment's last 4 KiB", o)
		}
	}
	// A clean stop: no recovery at start, the damage stays.
	testcluster.Apply(t, b, cluster.Start, "k1")
	testcluster.WaitPartition(t, admin, "c", "a leader", func(p kafka.Partition) bool { return p.Leader == 1 })
	if now, _ := os.ReadFile(seg); !bytes.Equal(now, after) {
		t.Errorf("after a start from a clean stop the segment changed (%d bytes): recovered?", len(now))
	}

	// A kill: recovery reads the segment again and cuts it at the damage.
	testcluster.Apply(t, b, cluster.Kill, "k1")
	done, err = co.Corrupt(ctx, "k1", cluster.Corruption{Dir: "c-0", Truncate: 50})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(seg); err != nil || fi.Size() != done.CutTo || done.CutTo != done.Size-50 {
		t.Errorf("after the cut: %v (%v); Corrupt says %+v", fi.Size(), err, done)
	}
	testcluster.Apply(t, b, cluster.Start, "k1")
	testcluster.WaitLog(t, b, "k1", "Corruption found in segment 0", 30*time.Second)
	testcluster.WaitPartition(t, admin, "c", "a leader", func(p kafka.Partition) bool { return p.Leader == 1 })
	end, err := admin.EndOffsets(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after recovery the log ends at %v", end)
	if end[0] >= 200 {
		t.Errorf("the log ends at %d after its segment was cut and recovered: nothing was lost", end[0])
	}
}
