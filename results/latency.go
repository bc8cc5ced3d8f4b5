package results

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Percentiles summarises ack latencies. Latency counts from a message's
// intended send time, so a stalled producer shows up as latency instead of
// as fewer samples (no coordinated omission).
type Percentiles struct {
	Count int           `json:"count"`
	P50   time.Duration `json:"p50"`
	P95   time.Duration `json:"p95"`
	P99   time.Duration `json:"p99"`
	P999  time.Duration `json:"p999"`
	Max   time.Duration `json:"max"`
}

// Histogram bounds: 1 µs resolution up to one day, three significant digits
// (an error of at most 0.1%).
const (
	histLowest  = int64(time.Microsecond)
	histHighest = int64(24 * time.Hour)
	histDigits  = 3
)

// MessageLatency returns how long m took from its intended send time to its
// acknowledgement, and false when m was not acknowledged. A negative value
// (clock step) counts as zero.
func MessageLatency(m Message) (time.Duration, bool) {
	if m.Status != StatusOK || m.Acked.IsZero() || m.Intended.IsZero() {
		return 0, false
	}
	d := m.Acked.Sub(m.Intended)
	if d < 0 {
		d = 0
	}
	return d, true
}

// Latency computes the percentiles of the ack latency of the acknowledged
// messages in msgs with an HdrHistogram. Max is exact; the percentiles are
// within 0.1% and never above Max.
func Latency(msgs []Message) Percentiles {
	var a latencies
	for _, m := range msgs {
		a.add(m)
	}
	return a.percentiles()
}

// latencies accumulates ack latencies without keeping the messages.
type latencies struct {
	h *hdrhistogram.Histogram
	p Percentiles
}

func (a *latencies) add(m Message) {
	if d, ok := MessageLatency(m); ok {
		a.addDuration(d)
	}
}

func (a *latencies) addDuration(d time.Duration) {
	if d < 0 {
		d = 0
	}
	if a.h == nil {
		a.h = hdrhistogram.New(histLowest, histHighest, histDigits)
	}
	a.p.Count++
	if d > a.p.Max {
		a.p.Max = d
	}
	_ = a.h.RecordValue(min(int64(d), histHighest)) // within the bounds
}

func (a *latencies) percentiles() Percentiles {
	p := a.p
	if p.Count == 0 {
		return p
	}
	at := func(q float64) time.Duration {
		return min(time.Duration(a.h.ValueAtQuantile(q)), p.Max)
	}
	p.P50, p.P95, p.P99, p.P999 = at(50), at(95), at(99), at(99.9)
	return p
}

// LatencyRecorder accumulates ack latencies one at a time, without keeping
// them: a producer's running summary. The zero value is ready to use; it
// is not safe for concurrent use.
type LatencyRecorder struct{ a latencies }

// Add records one latency; a negative one (clock step) counts as zero.
func (l *LatencyRecorder) Add(d time.Duration) { l.a.addDuration(d) }

// Percentiles returns the percentiles of what was recorded so far.
func (l *LatencyRecorder) Percentiles() Percentiles { return l.a.percentiles() }

// Latency returns the ack latency percentiles of label in the run.
func (r Run) Latency(label string) Percentiles {
	var a latencies
	r.addLatencies(&a, label)
	return a.percentiles()
}

func (r Run) addLatencies(a *latencies, label string) {
	for _, t := range r.Topics {
		if t.Label == label {
			for _, m := range t.Messages {
				a.add(m)
			}
			for i := 0; i < t.Ledger.Len(); i++ {
				if d, ok := t.Ledger.Latency(i); ok {
					a.addDuration(d)
				}
			}
		}
	}
}

// LatencyAll returns the ack latency percentiles of label over every run.
func (r *Results) LatencyAll(label string) Percentiles {
	var a latencies
	for _, run := range r.Runs {
		run.addLatencies(&a, label)
	}
	return a.percentiles()
}

// A producer's first messages wait for the producer itself: its
// connections, its metadata, an idempotent producer's id (on a new
// cluster, the controller's first block of ids for the broker asked).
// StartWait measures that wait; LatencyAfterStart leaves it out, so that
// a fault later in the run is not charged for it.

// start is when label's first message was meant to be sent and when its
// first acknowledgement came; ok is false when nothing was acknowledged.
func (r Run) start(label string) (first, ack time.Time, ok bool) {
	for _, t := range r.Topics {
		if t.Label != label {
			continue
		}
		for _, m := range t.All() {
			if !m.Intended.IsZero() && (first.IsZero() || m.Intended.Before(first)) {
				first = m.Intended
			}
			if m.Status == StatusOK && !m.Acked.IsZero() && (ack.IsZero() || m.Acked.Before(ack)) {
				ack = m.Acked
			}
		}
	}
	return first, ack, !first.IsZero() && !ack.IsZero()
}

// StartWait is how long label's producers took to their first
// acknowledgement from their first message's intended send time; false
// when nothing was acknowledged.
func (r Run) StartWait(label string) (time.Duration, bool) {
	first, ack, ok := r.start(label)
	return max(ack.Sub(first), 0), ok
}

// LatencyAfterStart returns the ack latency percentiles of label's
// messages meant to be sent after its first acknowledgement.
func (r Run) LatencyAfterStart(label string) Percentiles {
	var a latencies
	_, ack, ok := r.start(label)
	if !ok {
		return a.percentiles()
	}
	for _, t := range r.Topics {
		if t.Label != label {
			continue
		}
		for _, m := range t.All() {
			if m.Intended.After(ack) {
				a.add(m)
			}
		}
	}
	return a.percentiles()
}
