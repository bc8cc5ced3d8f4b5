package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The releases TestRollingUpgrade upgrades between, and the
// metadata.version levels that tell them apart: 4.3's newest level is
// past every level 4.2.2 supports.
const (
	upgradeFrom     = "4.2.2"
	upgradeTo       = "4.3.1"
	metadata43Level = 30 // 4.3-IV0, metadata.version's level finalized by --metadata 4.3
)

// rollRunbook upgrades a three-node cluster one node at a time under an
// idempotent acks=all producer, waiting for the ISR between nodes, then
// finalizes 4.3's metadata.version.
const rollRunbook = "---\n" + `title: a rolling upgrade
nodes: 3
---
` + "```kafka" + `
topic create up --replicas 1:2:3 --config min.insync.replicas=2
produce up --acks all --idempotent --rate 200/s --for 15s --size 64 &
sleep 2s
roll --to ` + upgradeTo + ` --wait isr
wait producers --timeout 60s
features upgrade --metadata 4.3
read up
expect lost(up) == 0
expect duplicates(up) == 0
expect acked(up) == 3000
` + "```\n"

// TestRollingUpgrade runs roll --to and features upgrade on a cluster of
// its own, started on an older release, and checks what the cluster
// says with a client of the test's own: every broker supports 4.3's
// metadata.version after the roll and none did before, every node's log
// says it started on the new release, and the finalized level is 4.3's.
// The evidence holds each stop and start in order, each start with its
// release, and no acknowledged message lost or duplicated.
func TestRollingUpgrade(t *testing.T) {
	backend, st := testcluster.StartOn(t, upgradeFrom, 3, nil)
	for _, n := range st.Nodes {
		if max := metadataMax(t, n.Address); max >= metadata43Level {
			t.Fatalf("before the roll %s supports metadata.version %d: not a %s broker", n.Name, max, upgradeFrom)
		}
	}
	res, _, out, err := runRunbook(t, backend, t.TempDir(), "roll.md", rollRunbook)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run := res.Runs[0]
	allHeld(t, run)

	// The cluster, asked by the test's own client.
	for _, n := range st.Nodes {
		if max := metadataMax(t, n.Address); max < metadata43Level {
			t.Errorf("after the roll %s supports metadata.version up to %d, want %d (4.3)", n.Name, max, metadata43Level)
		}
		testcluster.WaitLog(t, backend, n.Name, "Kafka version: "+upgradeTo, 10*time.Second)
	}
	if got := finalizedMetadata(t, st.Nodes[0].Address); got != metadata43Level {
		t.Errorf("finalized metadata.version is %d, want %d", got, metadata43Level)
	}
	now, err := backend.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range now.Nodes {
		if n.Kafka != upgradeTo || n.State != cluster.Running {
			t.Errorf("the backend says %s is %s on %q, want running on %s", n.Name, n.State, n.Kafka, upgradeTo)
		}
	}

	// The evidence: k1, k2, k3 in turn, each stop followed by its start.
	var seq []string
	for _, f := range run.Faults {
		seq = append(seq, f.Op+" "+strings.Join(f.Nodes, ",")+" "+f.Kafka)
	}
	want := []string{"stop k1 ", "start k1 " + upgradeTo, "stop k2 ", "start k2 " + upgradeTo, "stop k3 ", "start k3 " + upgradeTo}
	if !slices.Equal(seq, want) {
		t.Errorf("fault events %q, want %q", seq, want)
	}
	for _, s := range []string{"k1 stopped in", "started on " + upgradeTo + ", every ISR full after", "metadata.version was upgraded to 30"} {
		if !strings.Contains(out, s) {
			t.Errorf("the console lacks %q", s)
		}
	}
}

// metadataMax is the newest metadata.version the broker at addr supports,
// from its ApiVersions answer.
func metadataMax(t *testing.T, addr string) int16 {
	t.Helper()
	resp := apiVersions(t, addr)
	for _, f := range resp.SupportedFeatures {
		if f.Name == "metadata.version" {
			return f.MaxVersion
		}
	}
	t.Fatalf("%s names no metadata.version among its supported features", addr)
	return 0
}

// finalizedMetadata is the cluster's finalized metadata.version, as the
// broker at addr answers ApiVersions.
func finalizedMetadata(t *testing.T, addr string) int16 {
	t.Helper()
	for _, f := range apiVersions(t, addr).FinalizedFeatures {
		if f.Name == "metadata.version" {
			return f.MaxVersionLevel
		}
	}
	t.Fatalf("%s has no finalized metadata.version", addr)
	return 0
}

func apiVersions(t *testing.T, addr string) *kmsg.ApiVersionsResponse {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kafkabook-test", "1"
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("ApiVersions of %s: %v", addr, err)
	}
	return resp
}
