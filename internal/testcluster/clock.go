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
