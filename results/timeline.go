package results

import (
	"slices"
	"time"
)

// Sampling says how finely a timeline (leader/ISR, a group's committed
// offsets) was sampled, now that only its change points are stored: a
// reader knows that between two stored points every sample taken saw the
// earlier value, except inside Gaps, where none was taken.
type Sampling struct {
	EveryMS int   `json:"every_ms"` // the sampler's cadence in milliseconds; 0 when the evidence did not record it
	Taken   int   `json:"taken"`    // samples taken (one sample covers every partition)
	Stored  int   `json:"stored"`   // points stored: per partition its first sample, each change and its last sample
	Gaps    []Gap `json:"gaps"`     // intervals of more than two cadences without a sample
}

// Gap is an interval in which a sampler was due but took no sample: the
// brokers did not answer, every request was still in flight, or (for
// committed offsets) no member of the group ran.
type Gap struct {
	From time.Time `json:"from"` // the last sample before
	To   time.Time `json:"to"`   // the first sample after
}

// timeline folds samples, in time order, into change points: per key (a
// partition) its first sample, each sample whose value differs from the
// one before, and its last sample. Samples taken together share At; each
// distinct At counts as one sample taken.
type timeline[S any, K comparable] struct {
	key    func(S) K
	same   func(a, b S) bool
	at     func(S) time.Time
	points []S
	keys   []K
	prev   map[K]S    // the latest sample of each key
	kept   map[K]bool // whether it is in points
	rounds []int64    // Unix ns of each sample taken, in order
}

func newTimeline[S any, K comparable](key func(S) K, same func(a, b S) bool, at func(S) time.Time) *timeline[S, K] {
	return &timeline[S, K]{key: key, same: same, at: at, prev: map[K]S{}, kept: map[K]bool{}}
}

func (t *timeline[S, K]) add(s S) {
	if ns := t.at(s).UnixNano(); len(t.rounds) == 0 || t.rounds[len(t.rounds)-1] != ns {
		t.rounds = append(t.rounds, ns)
	}
	k := t.key(s)
	p, seen := t.prev[k]
	if !seen {
		t.keys = append(t.keys, k)
	}
	changed := !seen || !t.same(p, s)
	if changed {
		t.points = append(t.points, s)
	}
	t.prev[k], t.kept[k] = s, changed
}

// result is the change points, each key's last sample included, in time
// order, and the sampling at the cadence every (0: infer it from the
// samples when infer is set, else unknown).
func (t *timeline[S, K]) result(every time.Duration, infer bool) ([]S, *Sampling) {
	pts := slices.Clip(t.points)
	for _, k := range t.keys {
		if !t.kept[k] {
			pts = append(pts, t.prev[k])
		}
	}
	slices.SortStableFunc(pts, func(a, b S) int { return t.at(a).Compare(t.at(b)) })
	if every <= 0 && infer {
		every = medianStep(t.rounds)
	}
	sm := &Sampling{EveryMS: int(every / time.Millisecond), Taken: len(t.rounds), Stored: len(pts), Gaps: []Gap{}}
	if every > 0 {
		for i := 1; i < len(t.rounds); i++ {
			if time.Duration(t.rounds[i]-t.rounds[i-1]) > 2*every {
				sm.Gaps = append(sm.Gaps, Gap{From: time.Unix(0, t.rounds[i-1]).UTC(), To: time.Unix(0, t.rounds[i]).UTC()})
			}
		}
	}
	return pts, sm
}

// medianStep is the median interval between consecutive times, rounded to
// the millisecond: the cadence of a sampler that did not record its own.
func medianStep(ns []int64) time.Duration {
	if len(ns) < 2 {
		return 0
	}
	steps := make([]int64, len(ns)-1)
	for i := range steps {
		steps[i] = ns[i+1] - ns[i]
	}
	slices.Sort(steps)
	return time.Duration(steps[len(steps)/2]).Round(time.Millisecond)
}

// isrKey names the partition of a leader/ISR sample.
type isrKey struct {
	topic     string
	partition int32
}

func newISRTimeline() *timeline[ISRSample, isrKey] {
	return newTimeline(
		func(s ISRSample) isrKey { return isrKey{s.Topic, s.Partition} },
		func(a, b ISRSample) bool {
			return a.Leader == b.Leader && slices.Equal(a.ISR, b.ISR) && slices.Equal(a.Replicas, b.Replicas)
		},
		func(s ISRSample) time.Time { return s.At })
}

func newOffsetTimeline() *timeline[OffsetSample, int32] {
	return newTimeline(
		func(s OffsetSample) int32 { return s.Partition },
		func(a, b OffsetSample) bool { return a.Committed == b.Committed },
		func(s OffsetSample) time.Time { return s.At })
}

// ISRChanges folds leader/ISR samples, every one a sampler took, into
// change points and their sampling; every is the sampler's cadence, 0 to
// infer it from the samples.
func ISRChanges(samples []ISRSample, every time.Duration) ([]ISRSample, *Sampling) {
	tl := newISRTimeline()
	for _, s := range sortedSamples(samples, func(s ISRSample) time.Time { return s.At }) {
		tl.add(s)
	}
	return tl.result(every, true)
}

// OffsetChanges folds committed-offset samples into change points; every
// is the sampler's cadence, 0 when unknown (kafkabook before schema 4
// recorded only changes, so the cadence cannot be inferred).
func OffsetChanges(samples []OffsetSample, every time.Duration) ([]OffsetSample, *Sampling) {
	tl := newOffsetTimeline()
	for _, s := range sortedSamples(samples, func(s OffsetSample) time.Time { return s.At }) {
		tl.add(s)
	}
	return tl.result(every, false)
}

func sortedSamples[S any](s []S, at func(S) time.Time) []S {
	if slices.IsSortedFunc(s, func(a, b S) int { return at(a).Compare(at(b)) }) {
		return s
	}
	s = slices.Clone(s)
	slices.SortStableFunc(s, func(a, b S) int { return at(a).Compare(at(b)) })
	return s
}

// Compact stores the timelines of every run as change points where they
// still hold every sample taken, as Write and Load do: evidence built by
// hand compares equal to what a round trip through results.json gives.
func (r *Results) Compact() {
	for i := range r.Runs {
		r.Runs[i].compactTimelines()
	}
}

// compactTimelines stores r's timelines as change points where they are
// still every sample taken (no sampling recorded: evidence of schema 3 or
// earlier, or made by hand). Consumers is copied before a change, so a
// shallow copy of a Run can be compacted without touching the original.
func (r *Run) compactTimelines() {
	if r.ISRSampling == nil && len(r.ISR) > 0 {
		r.ISR, r.ISRSampling = ISRChanges(r.ISR, 0)
	}
	cloned := false
	for i := range r.Consumers {
		if r.Consumers[i].OffsetSampling != nil || len(r.Consumers[i].Offsets) == 0 {
			continue
		}
		if !cloned {
			r.Consumers, cloned = slices.Clone(r.Consumers), true
		}
		c := &r.Consumers[i]
		c.Offsets, c.OffsetSampling = OffsetChanges(c.Offsets, 0)
	}
}
