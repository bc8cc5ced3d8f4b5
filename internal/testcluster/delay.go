package testcluster

import (
	"context"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// Delayed is a backend that delays links and heals them.
type Delayed interface {
	cluster.Delayer
	HealNetwork(ctx context.Context) error
}

// Delay checks link --delay over the link itself, by TCP handshakes with
// k2's broker listener (k2's SYN-ACK is what the delay holds), not by
// what the delayer says: with --to k3, what k2 sends k3 is 100 ms late
// and what it sends the clients' side ("", the backend's vantage point)
// is not; a heal ends it. (k2: the node a backend's corrupt test used,
// whose pod has kafkabook's binary already on Kubernetes.) check, when not nil, is called while the delay
// is in force (true) and after the heal (false). It is every backend's
// check of the delay; the local backend's full-tier TestDelay goes
// further (jitter, every link).
func Delay(t testing.TB, b Delayed, check func(delayed bool)) {
	t.Helper()
	ctx := context.Background()
	median := func(from string) time.Duration {
		t.Helper()
		d, err := b.Handshakes(ctx, from, "k2", 5)
		if err != nil {
			t.Fatal(err)
		}
		return d[len(d)/2]
	}
	if k3, clients := median("k3"), median(""); k3 > 20*time.Millisecond || clients > 20*time.Millisecond {
		t.Fatalf("before any delay: k3→k2 %v, clients→k2 %v", k3, clients)
	}
	const delay = 100 * time.Millisecond
	if err := b.Delay(ctx, "k2", cluster.LinkDelay{Delay: delay, To: []string{"k3"}}); err != nil {
		t.Fatal(err)
	}
	k3, clients := median("k3"), median("")
	t.Logf("k2 --to k3 --delay %v: k3→k2 handshake %v, clients→k2 %v", delay, k3.Round(time.Millisecond), clients.Round(time.Millisecond))
	if k3 < delay || k3 > delay+50*time.Millisecond || clients > 20*time.Millisecond {
		t.Errorf("with k2's link to k3 %v late: k3→k2 %v (want %v to %v), clients→k2 %v (want under 20ms)", delay, k3, delay, delay+50*time.Millisecond, clients)
	}
	if check != nil {
		check(true)
	}
	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if k3 := median("k3"); k3 > 20*time.Millisecond {
		t.Errorf("after heal: k3→k2 %v", k3)
	}
	if check != nil {
		check(false)
	}
}
