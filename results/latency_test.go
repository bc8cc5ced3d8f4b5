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

// TestStartWait: a producer that needs 1.8 s to start queues its first
// messages, which wait up to 1.8 s; start_wait is that wait, and
// max_after_start is the largest latency after it, here a 700 ms stall
// later in the run, which max alone hides behind the start.
func TestStartWait(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := &Ledger{}
	tick := 10 * time.Millisecond
	for i := range 1000 {
		intended := base.Add(time.Duration(i) * tick)
		acked := intended.Add(5 * time.Millisecond)
		switch {
		case intended.Before(base.Add(1800 * time.Millisecond)):
			acked = base.Add(1800 * time.Millisecond) // queued behind the start
		case i == 500:
			acked = intended.Add(700 * time.Millisecond)
		}
		l.Add(int64(i+1), AcksAll, true, intended, acked, StatusOK, "", 0, int64(i), 0)
	}
	run := Run{Topics: []Topic{{Name: "t-r1", Label: "t", Ledger: l}}}
	for _, c := range []struct {
		name string
		want time.Duration
	}{{"max", 1800 * time.Millisecond}, {"start_wait", 1800 * time.Millisecond}, {"max_after_start", 700 * time.Millisecond}} {
		got, ok := FindMeasure(c.name).Of(run, "t")
		if !ok || time.Duration(got) != c.want {
			t.Errorf("%s(t) = %v (%v), want %v", c.name, time.Duration(got), ok, c.want)
		}
	}
	if _, ok := FindMeasure("start_wait").Of(Run{}, "t"); ok {
		t.Errorf("start_wait of a topic with nothing acknowledged is defined")
	}
}
