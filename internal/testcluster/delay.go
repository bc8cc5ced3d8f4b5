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
// k1's broker listener (k1's SYN-ACK is what the delay holds), not by
// what the delayer says: with --to k2, what k1 sends k2 is 100 ms late
// and what it sends the clients' side ("", the backend's vantage point)
// is not; a heal ends it. check, when not nil, is called while the delay
// is in force (true) and after the heal (false). It is every backend's
// check of the delay; the local backend's full-tier TestDelay goes
// further (jitter, every link).
func Delay(t testing.TB, b Delayed, check func(delayed bool)) {
	t.Helper()
	ctx := context.Background()
	median := func(from string) time.Duration {
		t.Helper()
		d, err := b.Handshakes(ctx, from, "k1", 5)
		if err != nil {
			t.Fatal(err)
		}
		return d[len(d)/2]
	}
	if k2, clients := median("k2"), median(""); k2 > 20*time.Millisecond || clients > 20*time.Millisecond {
		t.Fatalf("before any delay: k2→k1 %v, clients→k1 %v", k2, clients)
	}
	const delay = 100 * time.Millisecond
	if err := b.Delay(ctx, "k1", cluster.LinkDelay{Delay: delay, To: []string{"k2"}}); err != nil {
		t.Fatal(err)
	}
	k2, clients := median("k2"), median("")
	t.Logf("k1 --to k2 --delay %v: k2→k1 handshake %v, clients→k1 %v", delay, k2.Round(time.Millisecond), clients.Round(time.Millisecond))
	if k2 < delay || k2 > delay+50*time.Millisecond || clients > 20*time.Millisecond {
		t.Errorf("with k1's link to k2 %v late: k2→k1 %v (want %v to %v), clients→k1 %v (want under 20ms)", delay, k2, delay, delay+50*time.Millisecond, clients)
	}
	if check != nil {
		check(true)
	}
	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if k2 := median("k2"); k2 > 20*time.Millisecond {
		t.Errorf("after heal: k2→k1 %v", k2)
	}
	if check != nil {
		check(false)
	}
}
