package local_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/netdelay"
	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// TestDelay: link --delay on a real cluster, measured over the link by
// TCP handshakes with a broker (not read back from the delayer): what k1
// sends is 100 ms late to the host and to the other nodes; with jitter
// the round trips spread over it; with --to k2 only k2 sees it; heal ends
// it and stops the delayer; down leaves no delayer behind. Full tier: the
// fast one runs link --delay on the shared cluster (the engine's
// TestLinkDelay) and the delayer itself (internal/netdelay).
func TestDelay(t *testing.T) {
	testcluster.FullTier(t)
	if m := netdelay.Missing(); m != "" {
		testcluster.Lacks(t, "link --delay needs "+m)
	}
	b, st := testcluster.Start(t, 3, nil)
	ctx := context.Background()
	t.Cleanup(func() {
		b.HealNetwork(ctx)
		for _, node := range []string{"k1", "k2", "k3"} {
			if p, err := b.LogPath(node); err == nil && t.Failed() {
				data, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "netdelay.log"))
				t.Logf("%s's delayers:\n%s", node, data)
			}
		}
	})
	// rtt is the median and the spread of n handshakes with node's broker.
	rtt := func(from, node string, n int) (median, lo, hi time.Duration) {
		t.Helper()
		d, err := b.Handshakes(ctx, from, node, n)
		if err != nil {
			t.Fatal(err)
		}
		return d[len(d)/2], d[0], d[len(d)-1]
	}
	const delay = 100 * time.Millisecond
	before, _, _ := rtt("", "k1", 5)
	between, _, _ := rtt("k3", "k1", 5)
	t.Logf("before: host→k1 %v, k3→k1 %v", before, between)
	if before > 20*time.Millisecond || between > 20*time.Millisecond {
		t.Fatalf("the links are slow before any delay: %v, %v", before, between)
	}

	if err := b.Delay(ctx, "k1", cluster.LinkDelay{Delay: delay}); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{"", "k3"} {
		m, lo, hi := rtt(from, "k1", 5)
		t.Logf("link k1 --delay 100ms: from %q to k1: median %v (%v..%v)", from, m, lo, hi)
		if lo < delay || hi > delay+15*time.Millisecond {
			t.Errorf("link k1 --delay 100ms: handshakes from %q took %v..%v", from, lo, hi)
		}
	}
	if m, _, _ := rtt("", "k2", 5); m > 20*time.Millisecond {
		t.Errorf("link k1 --delay 100ms: k2 is slow too: %v", m)
	}
	if rules, _ := b.NetworkFaults(ctx); !strings.Contains(strings.Join(rules["k1"], " "), "NFQUEUE") {
		t.Errorf("link k1 --delay: the rules do not show the queue: %v", rules)
	}

	// Jitter: 50 ms + 0..40 ms, spread and bounded.
	if err := b.Delay(ctx, "k1", cluster.LinkDelay{Delay: 50 * time.Millisecond, Jitter: 40 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	m, lo, hi := rtt("", "k1", 30)
	t.Logf("link k1 --delay 50ms --jitter 40ms: median %v, %v..%v", m, lo, hi)
	if lo < 50*time.Millisecond || hi > 105*time.Millisecond || hi-lo < 15*time.Millisecond {
		t.Errorf("link k1 --delay 50ms --jitter 40ms: handshakes took %v..%v", lo, hi)
	}

	// One way, to k2 only: k2 sees the delay, k3 and the host do not.
	if err := b.Delay(ctx, "k1", cluster.LinkDelay{Delay: delay, To: []string{"k2"}}); err != nil {
		t.Fatal(err)
	}
	toK2, _, _ := rtt("k2", "k1", 5)
	toK3, _, _ := rtt("k3", "k1", 5)
	toHost, _, _ := rtt("", "k1", 5)
	t.Logf("link k1 --to k2 --delay 100ms: k2→k1 %v, k3→k1 %v, host→k1 %v", toK2, toK3, toHost)
	if toK2 < delay || toK2 > delay+15*time.Millisecond || toK3 > 20*time.Millisecond || toHost > 20*time.Millisecond {
		t.Errorf("link k1 --to k2 --delay 100ms: k2→k1 %v, k3→k1 %v, host→k1 %v", toK2, toK3, toHost)
	}

	// --delay 0 removes it; so does heal, with the delayer.
	if err := b.Delay(ctx, "k1", cluster.LinkDelay{}); err != nil {
		t.Fatal(err)
	}
	if m, _, _ := rtt("k2", "k1", 5); m > 20*time.Millisecond {
		t.Errorf("link k1 --delay 0: still %v", m)
	}
	if err := b.Delay(ctx, "k2", cluster.LinkDelay{Delay: delay}); err != nil {
		t.Fatal(err)
	}
	pid := delayerPID(t, "kb-"+st.Name+"-k2")
	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if m, _, _ := rtt("", "k2", 5); m > 20*time.Millisecond {
		t.Errorf("after heal, k2 still answers in %v", m)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
		t.Errorf("after heal, k2's delayer (pid %d) still runs", pid)
	}
	if faults, _ := b.NetworkFaults(ctx); len(faults) != 0 {
		t.Errorf("after heal, rules remain: %v", faults)
	}

	// A delay left in force goes with down; Start's cleanup checks that
	// nothing of the cluster remains.
	if err := b.Delay(ctx, "k3", cluster.LinkDelay{Delay: delay}); err != nil {
		t.Fatal(err)
	}
	if pid := delayerPID(t, "kb-"+st.Name+"-k3"); pid == 0 {
		t.Fatal("no delayer for k3")
	}
}

// delayerPID finds the delayer running in network namespace ns, through
// its command line and its namespace's inode.
func delayerPID(t *testing.T, ns string) int {
	t.Helper()
	var want syscall.Stat_t
	if err := syscall.Stat("/run/netns/"+ns, &want); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !netdelay.Is(strings.Split(string(data), "\x00")) {
			continue
		}
		if link, _ := os.Readlink("/proc/" + e.Name() + "/ns/net"); link != fmt.Sprintf("net:[%d]", want.Ino) {
			continue
		}
		var pid int
		fmt.Sscan(e.Name(), &pid)
		return pid
	}
	t.Fatalf("no delayer runs in %s", ns)
	return 0
}
