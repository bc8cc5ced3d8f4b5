package results

import (
	"fmt"
	"time"
)

// Measure is a function of `expect` expressions, such as lost(acks1): what
// it measures of one topic, or one consumer group, in one run. The runbook
// checker takes the names from here, the engine evaluates them here, and
// the language reference lists them from here: one table.
type Measure struct {
	Name     string
	Summary  string
	Duration bool // a latency in nanoseconds, compared with durations
	Group    bool // measures a consumer group, not a topic
	// Of computes the value for the topic (or group) labelled label, and
	// false when the run has nothing to compute it from (no read of the
	// topic, no tally of the group).
	Of func(r Run, label string) (int64, bool)
	// IDs, for a measure that counts ids, lists them sorted: an
	// expectation may then compare them with a set, {m-004..m-010}.
	IDs func(r Run, label string) ([]string, bool)
}

// Measures lists the functions of expect expressions, in the order of the
// reference. Counts of a read come from the run's final read when it has
// one (see Run.Tally).
var Measures = []Measure{
	tallyIDs("lost", "acknowledged messages provably gone: absent from the final read although the log moved past their offset",
		func(t Tally) []string { return lossIDs(t.Lost) }),
	tallyIDs("unseen", "acknowledged messages at or above the high watermark read (0 after a final read)",
		func(t Tally) []string { return t.Unseen }),
	{Name: "present", Summary: "acknowledged messages the read found", Of: func(r Run, label string) (int64, bool) {
		t, ok := r.Tally(label)
		return int64(t.Present), ok
	}},
	tallyIDs("duplicates", "messages the read found at more than one offset",
		func(t Tally) []string { return duplicateIDs(t.Duplicates) }),
	{Name: "acked", Summary: "messages acknowledged by the cluster", Of: ledgerCount(StatusOK)},
	ledgerIDs("failed", "sends refused with a definite error (e.g. NOT_ENOUGH_REPLICAS)", StatusFailed),
	ledgerIDs("unknown", "sends without a definite outcome (timeout, connection lost): maybe written", StatusUnknown),
	latency("p50", "median ack latency, from each message's intended send time", func(p Percentiles) time.Duration { return p.P50 }),
	latency("p99", "99th percentile ack latency", func(p Percentiles) time.Duration { return p.P99 }),
	latency("max", "largest ack latency", func(p Percentiles) time.Duration { return p.Max }),
	{Name: "start_wait", Duration: true,
		Summary: "how long the producers of the topic took to their first acknowledgement, from their first message's intended send time: their start (connections, metadata, an idempotent producer's id)",
		Of: func(r Run, label string) (int64, bool) {
			d, ok := r.StartWait(label)
			return int64(d), ok
		}},
	{Name: "max_after_start", Duration: true,
		Summary: "largest ack latency of the messages meant to be sent after the topic's first acknowledgement: max with the producers' start left out",
		Of: func(r Run, label string) (int64, bool) {
			p := r.LatencyAfterStart(label)
			return int64(p.Max), p.Count > 0
		}},

	groupCount("delivered", "records the group's members were given, each once however often it came",
		func(t *ConsumerTally) int64 { return int64(t.Delivered) }),
	groupIDs("redelivered", "records given to the group more than once",
		func(t *ConsumerTally) []string { return t.Redelivered }),
	groupCount("applied", "event ids whose effect is in the group's store",
		func(t *ConsumerTally) int64 { return int64(t.Applied) }),
	groupIDs("applied_twice", "event ids the store counts more than once: the like count went up again",
		func(t *ConsumerTally) []string { return appliedIDs(t.AppliedTwice) }),
	groupIDs("skipped", "deliveries the dedup table skipped: the event was handled before",
		func(t *ConsumerTally) []string { return t.Skipped }),
	groupIDs("unapplied", "records below the committed offset whose event never took effect: lost in the consumer",
		func(t *ConsumerTally) []string { return t.Unapplied }),
	groupIDs("pending", "records given to the group, not applied, not yet committed: the next member reads them again",
		func(t *ConsumerTally) []string { return t.Pending }),
	groupIDs("committed_early", "records whose offset was committed before their effect was applied, by the commits the members reported",
		func(t *ConsumerTally) []string { return t.CommittedEarly }),
	groupCount("committed", "the group's committed offsets summed over the partitions (the offset itself for one partition)",
		func(t *ConsumerTally) int64 { return t.CommittedTotal() }),
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

// idMeasure makes a measure whose value is the number of ids ids lists.
func idMeasure(name, summary string, group bool, ids func(Run, string) ([]string, bool)) Measure {
	return Measure{Name: name, Summary: summary, Group: group, IDs: ids,
		Of: func(r Run, label string) (int64, bool) {
			l, ok := ids(r, label)
			return int64(len(l)), ok
		}}
}

func tallyIDs(name, summary string, f func(Tally) []string) Measure {
	return idMeasure(name, summary, false, func(r Run, label string) ([]string, bool) {
		t, ok := r.Tally(label)
		return sortedIDs(f(t)), ok
	})
}

func ledgerIDs(name, summary string, s Status) Measure {
	return idMeasure(name, summary, false, func(r Run, label string) ([]string, bool) {
		var ids []string
		for _, tp := range r.Topics {
			if tp.Label != label {
				continue
			}
			for _, m := range tp.All() {
				if m.Status == s {
					ids = append(ids, m.ID)
				}
			}
		}
		return sortedIDs(ids), true
	})
}

func groupIDs(name, summary string, f func(*ConsumerTally) []string) Measure {
	return idMeasure(name, summary, true, func(r Run, label string) ([]string, bool) {
		c, ok := r.Consumer(label)
		if !ok || c.Tally == nil {
			return nil, false
		}
		return sortedIDs(f(c.Tally)), true
	})
}

func groupCount(name, summary string, f func(*ConsumerTally) int64) Measure {
	return Measure{Name: name, Summary: summary, Group: true, Of: func(r Run, label string) (int64, bool) {
		c, ok := r.Consumer(label)
		if !ok || c.Tally == nil {
			return 0, false
		}
		return f(c.Tally), true
	}}
}

func ledgerCount(s Status) func(Run, string) (int64, bool) {
	return func(r Run, label string) (int64, bool) {
		return int64(r.Count(label, s)), true
	}
}

func latency(name, summary string, f func(Percentiles) time.Duration) Measure {
	return Measure{Name: name, Summary: summary, Duration: true, Of: func(r Run, label string) (int64, bool) {
		return int64(f(r.Latency(label))), true
	}}
}

func sortedIDs(ids []string) []string {
	out := append([]string{}, ids...)
	SortIDs(out)
	return out
}

func lossIDs(ls []Loss) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.ID)
	}
	return out
}

func duplicateIDs(ds []Duplicate) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}

func appliedIDs(as []AppliedEvent) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Event)
	}
	return out
}
