package results

import (
	"math"
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

// Records is what one read found, in columns: about 20 bytes a record
// whatever its value, since an id that MessageID spells is kept as its
// number.
type Records struct {
	Partition []int32
	Offset    []int64
	key       []int64 // message number, or -1-i for ids.ids[i]
	ids       idTable
}

// Add appends a record holding id (the value up to its first blank) at
// partition and offset. It allocates nothing for an id MessageID spells.
func (r *Records) Add(id []byte, partition int32, offset int64) {
	r.Partition = append(r.Partition, partition)
	r.Offset = append(r.Offset, offset)
	r.key = append(r.key, r.ids.keyBytes(id))
}

// Len is the number of records.
func (r *Records) Len() int {
	if r == nil {
		return 0
	}
	return len(r.key)
}

// ID is the id of record i.
func (r *Records) ID(i int) string { return r.ids.id(r.key[i]) }

// RecordsOf turns a list of records into columns.
func RecordsOf(recs []Record) *Records {
	r := &Records{}
	for _, x := range recs {
		r.Add([]byte(x.ID), x.Partition, x.Offset)
	}
	return r
}

// Seen is what the reads of a run found at each offset, the first id seen
// there kept: the memory against which a later read spots a rewritten log
// (Inconsistent). Per partition it is an array over the offsets read, 8
// bytes an offset. The zero value is empty.
type Seen struct {
	parts map[int32]*seenPart
	ids   idTable
}

type seenPart struct {
	base int64   // offset of keys[0]
	keys []int64 // key of the id first seen at base+i, or noKey
}

const noKey = math.MinInt64

// Remember adds what a read found; the first id seen at an offset stays.
func (s *Seen) Remember(rd *Records) {
	if s.parts == nil {
		s.parts = map[int32]*seenPart{}
	}
	for i := 0; i < rd.Len(); i++ {
		p, off := rd.Partition[i], rd.Offset[i]
		sp := s.parts[p]
		if sp == nil {
			sp = &seenPart{base: off}
			s.parts[p] = sp
		}
		if off < sp.base {
			keys := make([]int64, int(sp.base-off), int(sp.base-off)+len(sp.keys))
			for j := range keys {
				keys[j] = noKey
			}
			sp.keys, sp.base = append(keys, sp.keys...), off
		}
		j := int(off - sp.base)
		for len(sp.keys) <= j {
			sp.keys = append(sp.keys, noKey)
		}
		if sp.keys[j] == noKey {
			k := rd.key[i]
			if k < 0 {
				k = s.ids.keyOther(rd.ids.id(k))
			}
			sp.keys[j] = k
		}
	}
}

// at returns the id first seen at a position.
func (s *Seen) at(p int32, off int64) (string, bool) {
	if s == nil {
		return "", false
	}
	sp := s.parts[p]
	if sp == nil || off < sp.base || off-sp.base >= int64(len(sp.keys)) || sp.keys[off-sp.base] == noKey {
		return "", false
	}
	return s.ids.id(sp.keys[off-sp.base]), true
}

// sameAt reports whether the id first seen at a position is key of tab,
// and the id seen there.
func (s *Seen) sameAt(p int32, off int64, key int64, tab *idTable) (same bool, was string, ok bool) {
	if s == nil {
		return true, "", false
	}
	sp := s.parts[p]
	if sp == nil || off < sp.base || off-sp.base >= int64(len(sp.keys)) {
		return true, "", false
	}
	k := sp.keys[off-sp.base]
	switch {
	case k == noKey:
		return true, "", false
	case k >= 0 && key >= 0:
		return k == key, MessageID(k), true
	}
	was = s.ids.id(k)
	return was == tab.id(key), was, true
}

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
// nor Settled. It is ClassifyRead on a list of records.
func Classify(t Topic, records []Record, hw map[int32]int64, earlier map[At]string, final bool) Tally {
	var seen *Seen
	if len(earlier) > 0 {
		seen = &Seen{}
		for pos, id := range earlier {
			seen.Remember(RecordsOf([]Record{{ID: id, Partition: pos.Partition, Offset: pos.Offset}}))
		}
	}
	return ClassifyRead(t, RecordsOf(records), hw, seen, final)
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
