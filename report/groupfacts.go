package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// What a group's events say, read once per run for its table, tally
// and chart: which member did what when, and how each ended.

// groupFacts is what a group's events say beyond its tally: its crashes
// and later members for the chart, the times of the effects of events
// applied more than once, and, for a group never tallied, the counts the
// members' reports give on their own.
type groupFacts struct {
	marks      []memberMark
	effectsAt  map[string][]time.Duration // event id → its effects, for AppliedTwice
	partitions int

	// From the events alone, for a group without a tally.
	delivered, deliveries, effects int
	redelivered, skipped           []string
	committed                      map[int32]int64 // the last commit reported or sampled
}

// memberMark is a member's crash (or failure) or a later member's start,
// a vertical line on the group's chart.
type memberMark struct {
	At    time.Duration
	Crash bool
	Short string // "member 1 crashed"
	Name  string // the tooltip
}

// eventKey is the event id a consumer event's effect counts under.
func eventKey(ev results.ConsumerEvent) string {
	if ev.Event != "" {
		return ev.Event
	}
	return ev.ID
}

// newGroupFacts reads a group's facts from one run: its events, its
// partitions and its members.
func newGroupFacts(run results.Run, c *results.Consumer) groupFacts {
	f := groupFacts{effectsAt: map[string][]time.Duration{}}
	crashed := f.readEvents(run, c)
	f.partitions = partitionCount(c)
	f.markMembers(run, c.Members, crashed)
	return f
}

// readEvents reads the group's events in time order: the times of the
// effects of events applied twice and, for a group without a tally, the
// counts the events give on their own. It returns each member's first
// crash event, for markMembers to say which record it crashed on.
func (f *groupFacts) readEvents(run results.Run, c *results.Consumer) map[int]results.ConsumerEvent {
	want := map[string]bool{}
	if c.Tally != nil {
		for _, a := range c.Tally.AppliedTwice {
			want[a.Event] = true
		}
	}
	crashed := map[int]results.ConsumerEvent{}
	noTally := c.Tally == nil
	type at struct {
		p   int32
		off int64
	}
	var seen map[at]int
	if noTally {
		seen = map[at]int{}
		f.committed = map[int32]int64{}
	}
	for _, ev := range sortedByTime(c.Events, eventAt) {
		switch ev.Kind {
		case results.EventEffect:
			if k := eventKey(ev); want[k] {
				f.effectsAt[k] = append(f.effectsAt[k], since(run, ev.At))
			}
			f.effects++
		case results.EventCrash:
			if _, ok := crashed[ev.Member]; !ok {
				crashed[ev.Member] = ev
			}
		case results.EventDeliver:
			if noTally {
				f.deliveries++
				k := at{ev.Partition, ev.Offset}
				seen[k]++
				if seen[k] == 2 {
					f.redelivered = append(f.redelivered, ev.ID)
				}
			}
		case results.EventSkip:
			if noTally {
				f.skipped = append(f.skipped, ev.ID)
			}
		case results.EventCommit:
			if noTally {
				f.committed[ev.Partition] = ev.Offset
			}
		}
	}
	if noTally {
		f.delivered = len(seen)
		for _, s := range sortedByTime(c.Offsets, sampleAt) {
			f.committed[s.Partition] = s.Committed
		}
		results.SortIDs(f.redelivered)
		results.SortIDs(f.skipped)
	}
	return crashed
}

// partitionCount counts the partitions the group's records say it read or
// committed: its events, its tally and its sampled offsets, since a
// partition may show in any one of them alone.
func partitionCount(c *results.Consumer) int {
	parts := map[int32]bool{}
	for _, ev := range c.Events {
		parts[ev.Partition] = true
	}
	if c.Tally != nil {
		for p := range c.Tally.End {
			parts[p] = true
		}
		for p := range c.Tally.Committed {
			parts[p] = true
		}
	}
	for _, s := range c.Offsets {
		parts[s.Partition] = true
	}
	return len(parts)
}

// markMembers adds the chart's member marks, in time order: a crash event
// (--crash-at) says which record; a member that ended crashed, or failed,
// says why; one crash mark per member, and a start mark for each member
// after the first. crashed holds each member's first crash event.
func (f *groupFacts) markMembers(run results.Run, members []results.Member, crashed map[int]results.ConsumerEvent) {
	for i, m := range sortedMembers(members) {
		ev, hasEv := crashed[m.N]
		switch {
		case hasEv || m.How == results.MemberCrashed:
			t := m.End
			name := fmt.Sprintf("run %d: member %d crashed", run.Number, m.N)
			if hasEv {
				t = ev.At
				name += fmt.Sprintf(" while handling %s (partition %d, offset %d)", orDash(ev.ID), ev.Partition, ev.Offset)
			}
			if m.Reason != "" {
				name += ": " + m.Reason
			}
			f.marks = append(f.marks, memberMark{At: since(run, t), Crash: true, Short: fmt.Sprintf("member %d crashed", m.N), Name: name})
			delete(crashed, m.N)
		case m.How == results.MemberStopped && strings.HasPrefix(m.Reason, "fenced"):
			// A frozen transform member whose successor took its
			// transactional id: the zombie case.
			f.marks = append(f.marks, memberMark{At: since(run, m.End), Crash: true, Short: fmt.Sprintf("member %d fenced", m.N),
				Name: fmt.Sprintf("run %d: member %d %s", run.Number, m.N, m.Reason)})
		case m.How == results.MemberFailed:
			name := fmt.Sprintf("run %d: member %d failed", run.Number, m.N)
			if m.Reason != "" {
				name += ": " + m.Reason
			}
			f.marks = append(f.marks, memberMark{At: since(run, m.End), Crash: true, Short: fmt.Sprintf("member %d failed", m.N), Name: name})
		}
		if i > 0 {
			f.marks = append(f.marks, memberMark{At: since(run, m.Start),
				Short: fmt.Sprintf("member %d started", m.N), Name: fmt.Sprintf("run %d: member %d started (pid %d)", run.Number, m.N, m.PID)})
		}
	}
	// A crash event of a member the group does not list.
	var rest []int
	for n := range crashed {
		rest = append(rest, n)
	}
	sort.Ints(rest)
	for _, n := range rest {
		ev := crashed[n]
		f.marks = append(f.marks, memberMark{At: since(run, ev.At), Crash: true, Short: fmt.Sprintf("member %d crashed", n),
			Name: fmt.Sprintf("run %d: member %d crashed while handling %s (partition %d, offset %d)", run.Number, n, orDash(ev.ID), ev.Partition, ev.Offset)})
	}
	sort.SliceStable(f.marks, func(i, j int) bool { return f.marks[i].At < f.marks[j].At })
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func eventAt(e results.ConsumerEvent) time.Time { return e.At }
func sampleAt(s results.OffsetSample) time.Time { return s.At }

// sortedByTime is s in time order (members report in order, but two
// members' reports, or samples and reports, may interleave); s itself when
// it already is.
func sortedByTime[T any](s []T, at func(T) time.Time) []T {
	less := func(a, b T) int { return at(a).Compare(at(b)) }
	if slices.IsSortedFunc(s, less) {
		return s
	}
	out := slices.Clone(s)
	slices.SortStableFunc(out, less)
	return out
}

func sortedMembers(ms []results.Member) []results.Member {
	out := slices.Clone(ms)
	slices.SortStableFunc(out, func(a, b results.Member) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return a.N - b.N
	})
	return out
}
