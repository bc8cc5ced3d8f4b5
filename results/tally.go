package results

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Record is one record a reader found: the message id in its value and where
// it sat. It is the input of Classify, kept separate from any client library.
type Record struct {
	ID        string
	Partition int32
	Offset    int64
}

// At is a position in a topic: partition and offset.
type At struct {
	Partition int32
	Offset    int64
}

// SentinelPrefix starts the value of the sentinel records the engine appends
// to every partition before a run's final read: they move the log past every
// acknowledged offset, and are not messages of the ledger.
const SentinelPrefix = "sentinel-"

// IsSentinel reports whether a record id is a sentinel.
func IsSentinel(id string) bool { return strings.HasPrefix(id, SentinelPrefix) }

// Classify compares what one read found (records, read up to the high
// watermarks hw) with the ledger of topic t, the way Jepsen's Kafka checker
// and Kafka's own system tests define loss. An acknowledged message is
//
//   - present when the read found it;
//   - unseen when it was not found but was acknowledged at or above the high
//     watermark the read reached: not visible yet, never called lost;
//   - lost when it was not found although the read reached past the offset it
//     was acknowledged at (another record sat there, or none did).
//
// An acks=0 message has no offset; it is lost only in a final read (after the
// sentinel moved every partition past it), unseen otherwise. earlier holds
// what previous reads of the run found at each offset; an offset now holding
// another id is an inconsistency. Classify sets neither At, Pos, Via, Final
// nor Settled.
func Classify(t Topic, records []Record, hw map[int32]int64, earlier map[At]string, final bool) Tally {
	found := map[string][]int64{}
	for _, r := range records {
		found[r.ID] = append(found[r.ID], r.Offset)
	}
	at := make(map[At]string, len(records))
	for _, r := range records {
		at[At{r.Partition, r.Offset}] = r.ID
	}
	tl := Tally{
		Topic: t.Name, Label: t.Label, HighWatermarks: copyHW(hw), Read: len(records),
		Lost: []Loss{}, Unseen: []string{}, Duplicates: []Duplicate{}, Inconsistent: []Inconsistency{},
		UnknownPresent: []string{}, FailedPresent: []string{},
	}
	ledger := map[string]bool{}
	for _, m := range t.Messages {
		ledger[m.ID] = true
		_, ok := found[m.ID]
		switch m.Status {
		case StatusFailed:
			tl.Failed++
			if ok {
				tl.FailedPresent = append(tl.FailedPresent, m.ID)
			}
		case StatusUnknown:
			tl.Unknown++
			if ok {
				tl.UnknownPresent = append(tl.UnknownPresent, m.ID)
			}
		case StatusOK:
			tl.Acked++
			high := hw[m.Partition]
			switch {
			case ok:
				tl.Present++
			case m.Offset < 0 && !final, m.Offset >= high:
				tl.Unseen = append(tl.Unseen, m.ID)
			default:
				tl.Lost = append(tl.Lost, Loss{ID: m.ID, Partition: m.Partition, Offset: m.Offset,
					HighWatermark: high, Found: at[At{m.Partition, m.Offset}]})
			}
		}
	}
	for id, offs := range found {
		if len(offs) > 1 && !IsSentinel(id) {
			slices.Sort(offs)
			tl.Duplicates = append(tl.Duplicates, Duplicate{ID: id, Offsets: offs})
		}
		if !ledger[id] && !IsSentinel(id) {
			tl.Foreign++
		}
	}
	for pos, id := range at {
		if was, ok := earlier[pos]; ok && was != id {
			tl.Inconsistent = append(tl.Inconsistent, Inconsistency{Partition: pos.Partition, Offset: pos.Offset, IDs: []string{was, id}})
		}
	}
	SortIDs(tl.Unseen)
	SortIDs(tl.UnknownPresent)
	SortIDs(tl.FailedPresent)
	slices.SortFunc(tl.Lost, func(a, b Loss) int { return cmpID(a.ID, b.ID) })
	slices.SortFunc(tl.Duplicates, func(a, b Duplicate) int { return cmpID(a.ID, b.ID) })
	slices.SortFunc(tl.Inconsistent, func(a, b Inconsistency) int {
		if a.Partition != b.Partition {
			return int(a.Partition - b.Partition)
		}
		return int(a.Offset - b.Offset)
	})
	return tl
}

// Remember adds what a read found to seen, the earlier reads Classify
// compares the next read with. The first id seen at an offset stays.
func Remember(seen map[At]string, records []Record) {
	for _, r := range records {
		if _, ok := seen[At{r.Partition, r.Offset}]; !ok {
			seen[At{r.Partition, r.Offset}] = r.ID
		}
	}
}

// LostIDs returns the ids of the lost messages, in order.
func (t Tally) LostIDs() []string {
	ids := make([]string, len(t.Lost))
	for i, l := range t.Lost {
		ids[i] = l.ID
	}
	return ids
}

// DuplicateIDs returns the ids found more than once, in order.
func (t Tally) DuplicateIDs() []string {
	ids := make([]string, len(t.Duplicates))
	for i, d := range t.Duplicates {
		ids[i] = d.ID
	}
	return ids
}

// Outcomes counts what became of the messages of a ledger by one read:
// every ledger entry falls in exactly one of Present, Lost, Unseen, Failed
// and Unknown; Duplicates counts present messages found more than once.
type Outcomes struct {
	Present, Lost, Unseen, Failed, Unknown, Duplicates int
}

// Outcomes returns the tally's counts.
func (t Tally) Outcomes() Outcomes {
	return Outcomes{Present: t.Present, Lost: len(t.Lost), Unseen: len(t.Unseen),
		Failed: t.Failed, Unknown: t.Unknown, Duplicates: len(t.Duplicates)}
}

func copyHW(hw map[int32]int64) map[int32]int64 {
	out := make(map[int32]int64, len(hw))
	for p, o := range hw {
		out[p] = o
	}
	return out
}

func cmpID(a, b string) int {
	switch {
	case a == b:
		return 0
	case LessID(a, b):
		return -1
	}
	return 1
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
