package local_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

// TestClockCost measures what libfaketime in a broker costs: the time a
// one-node cluster takes to come up, a small acks=all load (20,000
// messages of 100 bytes, as fast as franz-go sends them: throughput) and
// a paced one (5,000 at 1000/s: each message's ack latency), with the
// preload and without, one cluster after the other.
// It fails only when the preload makes either far worse (twice).
func TestClockCost(t *testing.T) {
	testcluster.FullTier(t)
	type cost struct {
		boot          time.Duration
		perSec        float64
		p50, p99, max time.Duration
	}
	measure := func(clock bool) cost {
		b, st, boot := startClock(t, 1, nil, clock)
		defer b.Down(context.Background(), t.Logf)
		ctx := context.Background()
		bootstrap := kafka.Plain(st.Bootstrap()...)
		admin, err := kafka.Dial(bootstrap)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: "load", Assignment: [][]int32{{1}}}); err != nil {
			t.Fatal(err)
		}
		var lat []time.Duration
		start := time.Now()
		if _, err := kafka.Produce(ctx, bootstrap, kafka.ProduceSpec{Topic: "load", From: 1, Count: 20000, Size: 100, Properties: map[string]string{"acks": "all"}},
			func(r kafka.Result) {
				if r.Status == results.StatusOK {
					lat = append(lat, r.Done.Sub(r.Intended))
				}
			}); err != nil || len(lat) != 20000 {
			t.Fatalf("%d of 20000 acked (%v)", len(lat), err)
		}
		took := time.Since(start)
		lat = lat[:0]
		if _, err := kafka.Produce(ctx, bootstrap, kafka.ProduceSpec{Topic: "load", From: 20001, Count: 5000, Size: 100, Rate: 1000, Properties: map[string]string{"acks": "all"}},
			func(r kafka.Result) {
				if r.Status == results.StatusOK {
					lat = append(lat, r.Done.Sub(r.Intended))
				}
			}); err != nil || len(lat) != 5000 {
			t.Fatalf("%d of 5000 acked (%v)", len(lat), err)
		}
		slices.Sort(lat)
		return cost{boot, 20000 / took.Seconds(), lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1]}
	}
	plain, faked := measure(false), measure(true)
	for _, c := range []struct {
		name string
		c    cost
	}{{"without", plain}, {"with libfaketime", faked}} {
		t.Logf("%-17s up in %.1fs; 20000 acks=all: %.0f msg/s; 5000 at 1000/s: ack latency p50 %s, p99 %s, max %s", c.name, c.c.boot.Seconds(), c.c.perSec, c.c.p50.Round(time.Microsecond), c.c.p99.Round(time.Microsecond), c.c.max.Round(time.Millisecond))
	}
	if faked.perSec < plain.perSec/2 || faked.boot > 2*plain.boot+5*time.Second {
		t.Errorf("libfaketime costs too much: %+v against %+v", faked, plain)
	}
}
