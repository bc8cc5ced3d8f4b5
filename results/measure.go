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
	// Of computes the value for the topic (or, for a Group measure, the
	// consumer group) labelled label, and false when the run has nothing
	// to compute it from (no read of the topic, no tally of the group).
	Of    func(r Run, label string) (int64, bool)
	Group bool // measures a consumer group, not a topic
}

// Measures lists the functions of expect expressions, in the order of the
// reference. Counts of a read come from the run's final read when it has
// one (see Run.Tally).
var Measures = []Measure{
	{"lost", "acknowledged messages provably gone: absent from the final read although the log moved past their offset", false,
		tallyCount(func(t Tally) int { return len(t.Lost) }), false},
	{"unseen", "acknowledged messages at or above the high watermark read (0 after a final read)", false,
		tallyCount(func(t Tally) int { return len(t.Unseen) }), false},
	{"present", "acknowledged messages the read found", false,
		tallyCount(func(t Tally) int { return t.Present }), false},
	{"duplicates", "messages the read found at more than one offset", false,
		tallyCount(func(t Tally) int { return len(t.Duplicates) }), false},
	{"acked", "messages acknowledged by the cluster", false, ledgerCount(StatusOK), false},
	{"failed", "sends refused with a definite error (e.g. NOT_ENOUGH_REPLICAS)", false, ledgerCount(StatusFailed), false},
	{"unknown", "sends without a definite outcome (timeout, connection lost): maybe written", false, ledgerCount(StatusUnknown), false},
	{"p50", "median ack latency, from each message's intended send time", true, latency(func(p Percentiles) time.Duration { return p.P50 }), false},
	{"p99", "99th percentile ack latency", true, latency(func(p Percentiles) time.Duration { return p.P99 }), false},
	{"max", "largest ack latency", true, latency(func(p Percentiles) time.Duration { return p.Max }), false},

	{"delivered", "records the group's members were given, each once however often it came", false,
		consumerCount(func(t *ConsumerTally) int64 { return int64(t.Delivered) }), true},
	{"redelivered", "records given to the group more than once", false,
		consumerCount(func(t *ConsumerTally) int64 { return int64(len(t.Redelivered)) }), true},
	{"applied", "event ids whose effect is in the group's store", false,
		consumerCount(func(t *ConsumerTally) int64 { return int64(t.Applied) }), true},
	{"applied_twice", "event ids the store counts more than once: the like count went up again", false,
		consumerCount(func(t *ConsumerTally) int64 { return int64(len(t.AppliedTwice)) }), true},
	{"skipped", "deliveries the dedup table skipped: the event was handled before", false,
		consumerCount(func(t *ConsumerTally) int64 { return int64(len(t.Skipped)) }), true},
	{"unapplied", "records below the committed offset whose event never took effect: lost in the consumer", false,
		consumerCount(func(t *ConsumerTally) int64 { return int64(len(t.Unapplied)) }), true},
	{"pending", "records given to the group, not applied, not yet committed: the next member reads them again", false,
		consumerCount(func(t *ConsumerTally) int64 { return int64(len(t.Pending)) }), true},
	{"committed_early", "records whose offset was committed before their effect was applied, by the commits the members reported", false,
		consumerCount(func(t *ConsumerTally) int64 { return int64(len(t.CommittedEarly)) }), true},
	{"committed", "the group's committed offsets summed over the partitions (the offset itself for one partition)", false,
		consumerCount(func(t *ConsumerTally) int64 { return t.CommittedTotal() }), true},
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

func consumerCount(f func(*ConsumerTally) int64) func(Run, string) (int64, bool) {
	return func(r Run, label string) (int64, bool) {
		c, ok := r.Consumer(label)
		if !ok || c.Tally == nil {
			return 0, false
		}
		return f(c.Tally), true
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
