package results

import "time"

// Bucket is one interval of a ledger's time series: what a throughput
// chart and a latency chart need at any number of messages, a few dozen
// bytes an interval instead of one point a message.
type Bucket struct {
	Start time.Time `json:"start"`
	// By the time the outcome arrived: the throughput the producer saw.
	Acked   int `json:"acked"`
	Failed  int `json:"failed"`
	Unknown int `json:"unknown"` // those with an outcome time; the others count nowhere
	// By the intended send time: the latency of the messages meant to go
	// out in this interval, so that a stall shows where it began.
	Sent       int           `json:"sent"`
	MinLatency time.Duration `json:"min_latency"` // of those acknowledged; 0 when none
	MaxLatency time.Duration `json:"max_latency"` // exact: a spike is never averaged away
}

// Series cuts the ledger into intervals of width from start to end (the
// run's bounds) and counts each interval: acknowledgements by the time
// they arrived, latencies by the time their message was meant to be sent.
// Entries outside [start, end) are left out. width > 0.
func (t Topic) Series(start, end time.Time, width time.Duration) []Bucket {
	if width <= 0 || !end.After(start) {
		return nil
	}
	n := int((end.Sub(start) + width - 1) / width)
	out := make([]Bucket, n)
	for i := range out {
		out[i].Start = start.Add(time.Duration(i) * width)
	}
	s0, e0 := start.UnixNano(), end.UnixNano()
	w := int64(width)
	slot := func(ns int64) int {
		if ns == 0 || ns < s0 || ns >= e0 {
			return -1
		}
		return int((ns - s0) / w)
	}
	add := func(st uint8, intended, acked int64) {
		if i := slot(acked); i >= 0 {
			switch st {
			case 0:
				out[i].Acked++
			case 1:
				out[i].Failed++
			default:
				out[i].Unknown++
			}
		}
		if i := slot(intended); i >= 0 {
			b := &out[i]
			b.Sent++
			if st == 0 && acked != 0 {
				d := max(time.Duration(acked-intended), 0)
				if b.MaxLatency == 0 || d > b.MaxLatency {
					b.MaxLatency = d
				}
				if b.MinLatency == 0 || d < b.MinLatency {
					b.MinLatency = d
				}
			}
		}
	}
	for _, m := range t.Messages {
		st := statusCode(m.Status)
		add(st, unixNano(m.Intended), unixNano(m.Acked))
	}
	if l := t.Ledger; l != nil {
		for i, f := range l.flags {
			add(f&flagStatus, l.intended[i], l.acked[i])
		}
	}
	return out
}
