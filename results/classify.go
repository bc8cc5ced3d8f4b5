package results

import (
	"cmp"
	"slices"
)

// ClassifyRead is Classify on records in columns and earlier reads in a
// Seen (nil: none). It keeps no per-message strings but those of the ids
// it reports, so that a read of a million records classifies in about
// 30 bytes a record beyond the ledger and the records.
func ClassifyRead(t Topic, rd *Records, hw map[int32]int64, earlier *Seen, final bool) Tally {
	if rd == nil {
		rd = &Records{}
	}
	c := &classifier{rd: rd, tab: &rd.ids, hw: hw, final: final, found: indexFound(rd), at: indexOffsets(rd), lostKey: map[int]int64{}}
	c.tl = Tally{
		Topic: t.Name, Label: t.Label, HighWatermarks: copyHW(hw), Read: rd.Len(),
		Lost: []Loss{}, Unseen: []string{}, Duplicates: []Duplicate{}, Inconsistent: []Inconsistency{},
		UnknownPresent: []string{}, FailedPresent: []string{},
	}
	for _, m := range t.Messages {
		st := uint8(3) // a status of no known kind counts nowhere
		switch m.Status {
		case StatusOK, StatusFailed, StatusUnknown:
			st = statusCode(m.Status)
		}
		c.entry(c.tab.key(m.ID), st, m.Partition, m.Offset)
	}
	if l := t.Ledger; l != nil {
		for i := range l.num {
			c.entry(l.key(i, c.tab), l.flags[i]&flagStatus, l.partition[i], l.offset[i])
		}
	}
	c.unexpected(earlier)
	c.sortLists()
	return c.tl
}

// classifier holds what ClassifyRead needs while it goes through a ledger.
type classifier struct {
	rd    *Records
	tab   *idTable
	hw    map[int32]int64
	final bool
	found *foundIndex
	at    offsetIndex
	tl    Tally

	// Keys of the ids to report, made strings once sorted.
	unseen, unknownPresent, failedPresent []int64
	lost                                  []Loss
	lostKey                               map[int]int64 // index in lost → key
}

// entry classifies one ledger entry: key is its id's key, st its status
// code, p and off where it was acknowledged.
func (c *classifier) entry(k int64, st uint8, p int32, off int64) {
	j, ok := c.found.find(k)
	if ok {
		c.found.infos[j].inLedger = true
	}
	switch st {
	case 1: // failed
		c.tl.Failed++
		if ok {
			c.failedPresent = append(c.failedPresent, k)
		}
	case 2: // unknown
		c.tl.Unknown++
		if ok {
			c.unknownPresent = append(c.unknownPresent, k)
		}
	case 0: // ok
		c.tl.Acked++
		high := c.hw[p]
		switch {
		case ok:
			c.tl.Present++
		case off < 0 && !c.final, off >= high:
			c.unseen = append(c.unseen, k)
		default:
			c.lostKey[len(c.lost)] = k
			c.lost = append(c.lost, Loss{Partition: p, Offset: off, HighWatermark: high, Found: c.at.id(c.rd, p, off)})
		}
	}
}

// unexpected counts what the read found that the ledger does not explain:
// ids found more than once, records that are neither ledger entries nor
// sentinels, and offsets holding another id than an earlier read saw.
func (c *classifier) unexpected(earlier *Seen) {
	rd, infos := c.rd, c.found.infos
	sentinel := make([]bool, len(c.tab.ids))
	for i, id := range c.tab.ids {
		sentinel[i] = IsSentinel(id)
	}
	isSentinel := func(k int64) bool { return k < 0 && sentinel[-1-k] }
	dups, dupKeys := map[int32][]int64{}, map[int32]int64{}
	counted := make([]bool, len(infos))
	for i, k := range rd.key {
		j, _ := c.found.find(k)
		if infos[j].count > 1 && !isSentinel(k) {
			dups[j] = append(dups[j], rd.Offset[i])
			dupKeys[j] = k
		}
		if !counted[j] {
			counted[j] = true
			if !infos[j].inLedger && !isSentinel(k) {
				c.tl.Foreign++
			}
		}
		if same, was, ok := earlier.sameAt(rd.Partition[i], rd.Offset[i], k, c.tab); ok && !same {
			c.tl.Inconsistent = append(c.tl.Inconsistent, Inconsistency{Partition: rd.Partition[i], Offset: rd.Offset[i], IDs: []string{was, rd.ID(i)}})
		}
	}
	for j, offs := range dups {
		slices.Sort(offs)
		c.tl.Duplicates = append(c.tl.Duplicates, Duplicate{ID: c.tab.id(dupKeys[j]), Offsets: offs})
	}
}

// sortLists puts every id list of the tally in id order, sorting keys
// before they become strings.
func (c *classifier) sortLists() {
	tab := c.tab
	order := func(a, b int64) int {
		if a >= 0 && b >= 0 {
			return cmp.Compare(a, b)
		}
		return cmpID(tab.id(a), tab.id(b))
	}
	ids := func(keys []int64) []string {
		slices.SortFunc(keys, order)
		out := make([]string, len(keys))
		for i, k := range keys {
			out[i] = tab.id(k)
		}
		return out
	}
	c.tl.Unseen = ids(c.unseen)
	c.tl.UnknownPresent = ids(c.unknownPresent)
	c.tl.FailedPresent = ids(c.failedPresent)
	idx := make([]int, len(c.lost))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return order(c.lostKey[a], c.lostKey[b]) })
	for _, i := range idx {
		l := c.lost[i]
		l.ID = tab.id(c.lostKey[i])
		c.tl.Lost = append(c.tl.Lost, l)
	}
	slices.SortFunc(c.tl.Duplicates, func(a, b Duplicate) int { return cmpID(a.ID, b.ID) })
	slices.SortFunc(c.tl.Inconsistent, func(a, b Inconsistency) int {
		if a.Partition != b.Partition {
			return int(a.Partition - b.Partition)
		}
		return cmp.Compare(a.Offset, b.Offset)
	})
}

// foundIndex is what a read found, by id key: how often, and whether the
// ledger has it. Message numbers index an array when they are dense
// enough, other keys a map.
type foundIndex struct {
	infos  []found
	dense  []int32 // key → 1 + index in infos
	sparse map[int64]int32
}

type found struct {
	count    int32
	inLedger bool
}

func indexFound(rd *Records) *foundIndex {
	var maxKey int64 = -1
	for _, k := range rd.key {
		maxKey = max(maxKey, k)
	}
	f := &foundIndex{sparse: map[int64]int32{}}
	if maxKey >= 0 && maxKey < 8*int64(rd.Len())+1024 {
		f.dense = make([]int32, maxKey+1)
	}
	for _, k := range rd.key {
		if j, ok := f.find(k); ok {
			f.infos[j].count++
			continue
		}
		j := int32(len(f.infos))
		f.infos = append(f.infos, found{count: 1})
		if k >= 0 && k < int64(len(f.dense)) {
			f.dense[k] = j + 1
		} else {
			f.sparse[k] = j
		}
	}
	return f
}

func (f *foundIndex) find(k int64) (int32, bool) {
	if k >= 0 && k < int64(len(f.dense)) {
		j := f.dense[k]
		return j - 1, j > 0
	}
	j, ok := f.sparse[k]
	return j, ok
}

// offsetIndex is where each record of a read sat: per partition, offset →
// 1 + record index, in an array from the lowest offset when the offsets
// are dense enough (as Kafka's are), else in a map, so that offsets far
// apart (evidence made by hand, or hostile) cost nothing.
type offsetIndex map[int32]*partOffsets

type partOffsets struct {
	base   int64
	rec    []int32
	sparse map[int64]int32
}

func indexOffsets(rd *Records) offsetIndex {
	lo, hi, count := map[int32]int64{}, map[int32]int64{}, map[int32]int64{}
	for i := 0; i < rd.Len(); i++ {
		p, off := rd.Partition[i], rd.Offset[i]
		if l, ok := lo[p]; !ok || off < l {
			lo[p] = off
		}
		hi[p] = max(hi[p], off)
		count[p]++
	}
	idx := offsetIndex{}
	for p, l := range lo {
		if span := hi[p] - l; span >= 0 && span < 8*count[p]+1024 {
			idx[p] = &partOffsets{base: l, rec: make([]int32, span+1)}
		} else {
			idx[p] = &partOffsets{sparse: map[int64]int32{}}
		}
	}
	for i := 0; i < rd.Len(); i++ {
		po := idx[rd.Partition[i]]
		if po.sparse != nil {
			po.sparse[rd.Offset[i]] = int32(i) + 1
		} else {
			po.rec[rd.Offset[i]-po.base] = int32(i) + 1
		}
	}
	return idx
}

// id is the id of the record the read found at p, off; "" when none.
func (x offsetIndex) id(rd *Records, p int32, off int64) string {
	po := x[p]
	var r int32
	switch {
	case po == nil:
	case po.sparse != nil:
		r = po.sparse[off]
	case off >= po.base && off-po.base < int64(len(po.rec)):
		r = po.rec[off-po.base]
	}
	if r == 0 {
		return ""
	}
	return rd.ID(int(r - 1))
}
