package results

import (
	"testing"
	"time"
)

func TestLatency(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var msgs []Message
	// 1000 acked messages with latencies 1ms..1000ms, plus some that must be ignored.
	for i := 1; i <= 1000; i++ {
		msgs = append(msgs, Message{ID: "m", Status: StatusOK, Intended: base, Acked: base.Add(time.Duration(i) * time.Millisecond)})
	}
	msgs = append(msgs,
		Message{Status: StatusUnknown, Intended: base, Acked: base.Add(time.Hour)},
		Message{Status: StatusFailed, Intended: base, Acked: base.Add(time.Hour)},
		Message{Status: StatusUnknown, Intended: base},
	)
	p := Latency(msgs)
	if p.Count != 1000 {
		t.Fatalf("count = %d, want 1000", p.Count)
	}
	check := func(name string, got, want time.Duration) {
		t.Helper()
		if d := got - want; d < -want/500 || d > want/500 { // 0.2%
			t.Errorf("%s = %v, want ~%v", name, got, want)
		}
	}
	check("p50", p.P50, 500*time.Millisecond)
	check("p95", p.P95, 950*time.Millisecond)
	check("p99", p.P99, 990*time.Millisecond)
	check("p999", p.P999, 999*time.Millisecond)
	if p.Max != time.Second {
		t.Errorf("max = %v, want exactly 1s", p.Max)
	}
	if p.P999 > p.Max {
		t.Errorf("p99.9 %v above max %v", p.P999, p.Max)
	}
}

func TestLatencyCountsFromIntended(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// The article's background producer: acked 29.3 s after it was meant to go.
	p := Latency([]Message{{Status: StatusOK, Intended: base, Acked: base.Add(29300 * time.Millisecond)}})
	if p.Max != 29300*time.Millisecond || p.P50 < 29270*time.Millisecond || p.P50 > p.Max {
		t.Errorf("got %+v", p)
	}
	if z := Latency(nil); z != (Percentiles{}) {
		t.Errorf("Latency(nil) = %+v, want zero", z)
	}
	// A clock step backwards counts as zero, not negative.
	if n := Latency([]Message{{Status: StatusOK, Intended: base, Acked: base.Add(-time.Second)}}); n.Max != 0 || n.Count != 1 {
		t.Errorf("negative latency: %+v", n)
	}
}
