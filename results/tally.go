package results

import (
	"sort"
	"strconv"
	"strings"
	"time"
)

// Record is one record a reader found: the message id in its value and where
// it sat. It is the input of NewTally, kept separate from any client library.
type Record struct {
	ID        string
	Partition int32
	Offset    int64
}

// NewTally compares what a reader found (records, read up to the high
// watermarks hw) with the ledger of topic t. It is the arithmetic behind the
// `read` directive, kept here so the engine and the tests share one
// definition of "lost". label names the topic as written in the runbook; when
// empty, t.Label is used.
func NewTally(t Topic, label string, records []Record, hw map[int32]int64, at time.Time, via string) Tally {
	if label == "" {
		label = t.Label
	}
	acked := map[string]bool{}
	ledger := map[string]bool{}
	for _, m := range t.Messages {
		ledger[m.ID] = true
		if m.Status == StatusOK {
			acked[m.ID] = true
		}
	}
	seen := map[string][]int64{}
	for _, r := range records {
		seen[r.ID] = append(seen[r.ID], r.Offset)
	}
	for _, offs := range seen {
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	}

	tl := Tally{
		Topic:          t.Name,
		Label:          label,
		At:             at,
		Via:            via,
		HighWatermarks: copyHW(hw),
		Read:           len(records),
		Acked:          len(acked),
		Present:        len(seen),
		Lost:           []string{},
		Duplicates:     []string{},
		UnackedPresent: []string{},
		NeverAcked:     []string{},
		Seen:           seen,
	}
	for id := range acked {
		if _, ok := seen[id]; !ok {
			tl.Lost = append(tl.Lost, id)
		}
	}
	for id, offs := range seen {
		if len(offs) > 1 {
			tl.Duplicates = append(tl.Duplicates, id)
		}
		if !acked[id] {
			tl.UnackedPresent = append(tl.UnackedPresent, id)
		}
	}
	for id := range ledger {
		if _, ok := seen[id]; !ok && !acked[id] {
			tl.NeverAcked = append(tl.NeverAcked, id)
		}
	}
	for _, ids := range [][]string{tl.Lost, tl.Duplicates, tl.UnackedPresent, tl.NeverAcked} {
		SortIDs(ids)
	}
	return tl
}

func copyHW(hw map[int32]int64) map[int32]int64 {
	out := make(map[int32]int64, len(hw))
	for p, o := range hw {
		out[p] = o
	}
	return out
}

// SortIDs sorts message ids by their number, so m-2 comes before m-10; ids
// without a trailing number sort after numbered ones, by text.
func SortIDs(ids []string) {
	sort.Slice(ids, func(i, j int) bool { return LessID(ids[i], ids[j]) })
}

// LessID orders message ids by prefix, then by the number after the last
// '-', then by text. It is the order of every id list in a Tally.
func LessID(a, b string) bool {
	pa, na, oka := splitID(a)
	pb, nb, okb := splitID(b)
	if oka != okb {
		return oka
	}
	if !oka {
		return a < b
	}
	if pa != pb {
		return pa < pb
	}
	if na != nb {
		return na < nb
	}
	return a < b
}

// splitID splits "m-011" into "m-" and 11.
func splitID(id string) (prefix string, n uint64, ok bool) {
	i := strings.LastIndexByte(id, '-') + 1
	if i == len(id) {
		return id, 0, false
	}
	n, err := strconv.ParseUint(id[i:], 10, 64)
	if err != nil {
		return id, 0, false
	}
	return id[:i], n, true
}
