package results

import (
	"fmt"
	"time"
)

// Measure is a function of `expect` expressions, such as lost(acks1): what
// it measures of one topic in one run. The runbook checker takes the names
// from here, the engine evaluates them here, and the language reference
// lists them from here: one table.
type Measure struct {
	Name     string
	Summary  string
	Duration bool // a latency in nanoseconds, compared with durations
	// Of computes the value for the topic labelled label, and false when
	// the run has nothing to compute it from (no read of the topic).
	Of func(r Run, label string) (int64, bool)
}

// Measures lists the functions of expect expressions, in the order of the
// reference. Counts of a read come from the run's final read when it has
// one (see Run.Tally).
var Measures = []Measure{
	{"lost", "acknowledged messages provably gone: absent from the final read although the log moved past their offset", false,
		tallyCount(func(t Tally) int { return len(t.Lost) })},
	{"unseen", "acknowledged messages at or above the high watermark read (0 after a final read)", false,
		tallyCount(func(t Tally) int { return len(t.Unseen) })},
	{"present", "acknowledged messages the read found", false,
		tallyCount(func(t Tally) int { return t.Present })},
	{"duplicates", "messages the read found at more than one offset", false,
		tallyCount(func(t Tally) int { return len(t.Duplicates) })},
	{"acked", "messages acknowledged by the cluster", false, ledgerCount(StatusOK)},
	{"failed", "sends refused with a definite error (e.g. NOT_ENOUGH_REPLICAS)", false, ledgerCount(StatusFailed)},
	{"unknown", "sends without a definite outcome (timeout, connection lost): maybe written", false, ledgerCount(StatusUnknown)},
	{"p50", "median ack latency, from each message's intended send time", true, latency(func(p Percentiles) time.Duration { return p.P50 })},
	{"p99", "99th percentile ack latency", true, latency(func(p Percentiles) time.Duration { return p.P99 })},
	{"max", "largest ack latency", true, latency(func(p Percentiles) time.Duration { return p.Max })},
}

// FindMeasure returns the measure called name, or nil.
func FindMeasure(name string) *Measure {
	for i := range Measures {
		if Measures[i].Name == name {
			return &Measures[i]
		}
	}
	return nil
}

// Show formats a value of the measure: a count, or a duration.
func (m *Measure) Show(v int64) string {
	if m.Duration {
		return time.Duration(v).Round(time.Millisecond).String()
	}
	return fmt.Sprint(v)
}

func tallyCount(f func(Tally) int) func(Run, string) (int64, bool) {
	return func(r Run, label string) (int64, bool) {
		t, ok := r.Tally(label)
		return int64(f(t)), ok
	}
}

func ledgerCount(s Status) func(Run, string) (int64, bool) {
	return func(r Run, label string) (int64, bool) {
		return int64(r.Count(label, s)), true
	}
}

func latency(f func(Percentiles) time.Duration) func(Run, string) (int64, bool) {
	return func(r Run, label string) (int64, bool) {
		return int64(f(r.Latency(label))), true
	}
}
