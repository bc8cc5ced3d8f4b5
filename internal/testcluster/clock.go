package testcluster

import (
	"context"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
)

// ReadClock reads a broker's clock offset back through Kafka, from the
// timestamp it stamps on a record of its LogAppendTime topic "clock"
// (kafka.ClockTopic), until it is within 2s of want (libfaketime reads the
// offset's file again at most once a second); the test fails when it
// never is. It is the check of a clock step apart from what kafkabook
// wrote.
func ReadClock(t testing.TB, bootstrap kafka.Brokers, want time.Duration) time.Duration {
	t.Helper()
	var got, within time.Duration
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		got, within, err = kafka.ClockOffset(context.Background(), bootstrap, "clock")
		if err == nil && (got-want).Abs() < 2*time.Second {
			t.Logf("set %s, read back %s (±%s) through a LogAppendTime record", cluster.OffsetText(want), cluster.OffsetText(got.Round(time.Millisecond)), within.Round(time.Millisecond))
			return got
		}
	}
	t.Fatalf("set %s, read back %s (%v)", cluster.OffsetText(want), cluster.OffsetText(got), err)
	return 0
}

// Clock steps k1's wall clock and reads it back apart from what the
// backend wrote (ReadClock): the other nodes keep the host's clock, as
// ClockStates says, and a reset puts k1 right. It is every backend's
// check of clock; topic "clock" is created on k1.
func Clock(t testing.TB, b cluster.Clocks, bootstrap kafka.Brokers) {
	t.Helper()
	ctx := context.Background()
	admin, err := kafka.Dial(bootstrap)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	// k1 may be fenced for a while after the fault before (an isolation
	// the controller noticed): the topic waits for it to be back.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Second) {
		err := admin.EnsureTopic(ctx, kafka.ClockTopic("clock", 1))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the clock topic on k1: %v", err)
		}
	}
	ReadClock(t, bootstrap, 0)
	if set, err := b.Clock(ctx, []string{"k1"}, time.Hour, false); err != nil || len(set) != 1 || set[0].Offset != time.Hour {
		t.Fatalf("clock k1 +1h: %+v (%v)", set, err)
	}
	ReadClock(t, bootstrap, time.Hour)
	states, err := b.ClockStates(ctx)
	if err != nil || len(states) != 3 {
		t.Fatalf("ClockStates: %+v (%v), want three nodes", states, err)
	}
	for _, s := range states {
		if want := map[bool]time.Duration{true: time.Hour}[s.Node == "k1"]; s.Offset != want {
			t.Errorf("%s's offset is %s, want %s", s.Node, cluster.OffsetText(s.Offset), cluster.OffsetText(want))
		}
	}
	if _, err := b.Clock(ctx, []string{"k1"}, 0, true); err != nil {
		t.Fatal(err)
	}
	ReadClock(t, bootstrap, 0)
}
