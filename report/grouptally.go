package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// A group's tally as rows of the page: the committed offsets against the
// topic's end, the store's effects, and the ids behind each number.

// committedRow compares the committed offset of every partition with its
// log end offset.
func committedRow(t *results.ConsumerTally) tallyRow {
	row := tallyRow{Name: "committed", Func: "committed", Value: strconv.FormatInt(t.CommittedTotal(), 10),
		Detail:  partitionList(t.Committed, t.End),
		Meaning: measureSummary("committed") + ", against each partition's log end offset"}
	for p, e := range t.End {
		if t.Committed[p] < e {
			row.Class = "warn"
		}
	}
	return row
}

// partitionList says each partition's committed offset, and with end its
// log end offset: "partition 0: 10 of 10; partition 1: 4 of 7 (3 behind)".
func partitionList(committed, end map[int32]int64) string {
	var ps []int32
	for p := range committed {
		ps = append(ps, p)
	}
	for p := range end {
		if _, ok := committed[p]; !ok {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	return strings.Join(firstOf(ps, maxPartitions, func(p int32) string {
		c, ok := committed[p]
		cs := strconv.FormatInt(c, 10)
		if !ok || c < 0 {
			cs, c = "none", 0
		}
		if end == nil {
			return fmt.Sprintf("partition %d: %s", p, cs)
		}
		e, ok := end[p]
		if !ok {
			return fmt.Sprintf("partition %d: %s of an unknown end", p, cs)
		}
		s := fmt.Sprintf("partition %d: %s of %d", p, cs, e)
		if c < e {
			s += fmt.Sprintf(" (%d behind)", e-c)
		}
		return s
	}), "; ")
}

func sumOffsets(m map[int32]int64) int64 {
	var n int64
	for _, o := range m {
		n += max(o, 0)
	}
	return n
}

// storeRow compares the store's effects with the effect events reported.
func storeRow(t *results.ConsumerTally) tallyRow {
	row := tallyRow{Name: "store total vs effects", Value: fmt.Sprintf("%d vs %d", t.StoreTotal, t.Effects),
		Meaning: "the store's applied counts summed (one per effect) against the effect events the members reported"}
	var detail []string
	switch d := t.StoreTotal - int64(t.Effects); {
	case d == 0:
		detail = append(detail, "they agree")
	case d > 0:
		row.Class = "warn"
		detail = append(detail, fmt.Sprintf("the store holds %d effect%s no member reported: a member died between an effect and its report", d, plural(int(d))))
	default:
		row.Class = "bad"
		detail = append(detail, fmt.Sprintf("the members reported %d effect%s the store does not hold", -d, plural(int(-d))))
	}
	if len(t.Likes) > 0 {
		likes := firstOf(slices.Sorted(maps.Keys(t.Likes)), maxGroupKeys, func(k string) string {
			name := k
			if k == "" {
				name = "(no key)"
			}
			return fmt.Sprintf("%s = %d", name, t.Likes[k])
		})
		detail = append(detail, "like count per key: "+strings.Join(likes, ", "))
	}
	row.Detail = strings.Join(detail, "; ")
	return row
}

// idItems are the first maxGroupIDs of ids, moreIDs how many are left.
func idItems(ids []string) []idItem {
	out := make([]idItem, 0, min(len(ids), maxGroupIDs))
	for _, id := range ids[:min(len(ids), maxGroupIDs)] {
		out = append(out, idItem{ID: id})
	}
	return out
}

func moreIDs(ids []string) int { return max(len(ids)-maxGroupIDs, 0) }

// appliedTwice lists the first events applied more than once, how often,
// and when their effects were reported: "m-004", "×2 (effects at 13.200 s,
// 14.800 s)".
func appliedTwice(evs []results.AppliedEvent, at map[string][]time.Duration) []idItem {
	var out []idItem
	for _, e := range evs[:min(len(evs), maxGroupIDs)] {
		it := idItem{ID: e.Event, Note: fmt.Sprintf("×%d", e.Times)}
		if ts := at[e.Event]; len(ts) > 0 {
			xs := firstOf(ts, maxEffectTimes, func(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) })
			it.Note += " (effects at " + strings.Join(xs, ", ") + ")"
		}
		out = append(out, it)
	}
	return out
}

// firstOf says the first n of xs, and "and K more" for the rest.
func firstOf[T any](xs []T, n int, say func(T) string) []string {
	out := make([]string, 0, min(len(xs), n)+1)
	for _, x := range xs[:min(len(xs), n)] {
		out = append(out, say(x))
	}
	if len(xs) > n {
		out = append(out, fmt.Sprintf("and %d more", len(xs)-n))
	}
	return out
}
