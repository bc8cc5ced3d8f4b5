package results

import (
	"fmt"
	"iter"
	"strconv"
	"time"
)

// Ledger is the produce ledger of one topic in columns: what Message says
// of each send, in about 41 bytes a message instead of a Message's 150. The
// produce path appends to it without allocating per message; tallies and
// latencies read its columns. The zero value is an empty ledger. A Ledger
// is not safe for concurrent use; Snapshot gives a reader a consistent view
// while a writer goes on appending.
type Ledger struct {
	num       []int64 // message number: the id is MessageID(num) unless ids says otherwise
	intended  []int64 // Unix nanoseconds; 0: zero time
	acked     []int64 // Unix nanoseconds; 0: zero time
	offset    []int64
	partition []int32
	epoch     []int32
	flags     []uint8          // status | acks<<2 | idempotent<<4
	errAt     map[int32]uint32 // entry index → 1 + index in errs, for entries with an error
	errs      []string         // distinct error texts
	errIdx    map[string]uint32
	ids       map[int32]string // entry index → id, for ids that are not MessageID(num)
}

// Flag bits of a ledger entry.
const (
	flagStatus     = 0x3 // 0 ok, 1 failed, 2 unknown
	flagAcksShift  = 2   // 0 "0", 1 "1", 2 "all", 3 other (""), 2 bits
	flagIdempotent = 0x10
)

var statusCodes = [...]Status{StatusOK, StatusFailed, StatusUnknown}
var acksCodes = [...]string{AcksNone.String(), AcksLeader.String(), AcksAll.String(), ""}

func statusCode(s Status) uint8 {
	switch s {
	case StatusOK:
		return 0
	case StatusFailed:
		return 1
	}
	return 2
}

// acksOf is the acks of an entry as evidence writes it; AcksUnrecorded
// for one without (or with one that is not a setting).
func acksOf(a string) Acks {
	if k, err := ParseAcks(a); err == nil {
		return k
	}
	return AcksUnrecorded
}

// MessageID is the id of message number n: m-001, m-1000.
func MessageID(n int64) string { return string(AppendMessageID(nil, n)) }

// AppendMessageID appends MessageID(n) to b.
func AppendMessageID(b []byte, n int64) []byte {
	b = append(b, 'm', '-')
	switch {
	case n >= 0 && n < 10:
		b = append(b, '0', '0')
	case n >= 10 && n < 100:
		b = append(b, '0')
	}
	return strconv.AppendInt(b, n, 10)
}

// ParseMessageID returns n when id is exactly MessageID(n), n ≥ 0.
func ParseMessageID(id []byte) (n int64, ok bool) {
	if len(id) < 5 || id[0] != 'm' || id[1] != '-' || len(id) > 20 {
		return 0, false
	}
	d := id[2:]
	if len(d) > 3 && d[0] == '0' {
		return 0, false // m-0012 is not how MessageID spells 12
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Entry is one ledger entry. Zero times are the zero time.Time.
type Entry struct {
	Num         int64
	Acks        string
	Idempotent  bool
	Intended    time.Time
	Acked       time.Time
	Status      Status
	Error       string
	Partition   int32
	Offset      int64
	LeaderEpoch int32
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// Len is the number of entries.
func (l *Ledger) Len() int {
	if l == nil {
		return 0
	}
	return len(l.num)
}

// Grow makes room for n more entries, so that appending them allocates
// nothing.
func (l *Ledger) Grow(n int) {
	l.num = grow(l.num, n)
	l.intended = grow(l.intended, n)
	l.acked = grow(l.acked, n)
	l.offset = grow(l.offset, n)
	l.partition = grow(l.partition, n)
	l.epoch = grow(l.epoch, n)
	l.flags = grow(l.flags, n)
}

func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	out := make([]T, len(s), len(s)+n)
	copy(out, s)
	return out
}

// Add appends one entry with the message number n; the hot path of a
// producer: no allocation unless a column grows or the entry has an error.
func (l *Ledger) Add(n int64, acks Acks, idempotent bool, intended, acked time.Time, st Status, errText string, partition int32, offset int64, epoch int32) {
	i := int32(len(l.num))
	l.num = append(l.num, n)
	l.intended = append(l.intended, unixNano(intended))
	l.acked = append(l.acked, unixNano(acked))
	l.offset = append(l.offset, offset)
	l.partition = append(l.partition, partition)
	l.epoch = append(l.epoch, epoch)
	f := statusCode(st) | uint8(acks&3)<<flagAcksShift
	if idempotent {
		f |= flagIdempotent
	}
	l.flags = append(l.flags, f)
	if errText != "" {
		l.setError(i, errText)
	}
}

func (l *Ledger) setError(i int32, text string) {
	if l.errIdx == nil {
		l.errIdx, l.errAt = map[string]uint32{}, map[int32]uint32{}
	}
	k, ok := l.errIdx[text]
	if !ok {
		l.errs = append(l.errs, text)
		k = uint32(len(l.errs))
		l.errIdx[text] = k
	}
	l.errAt[i] = k
}

// AddEntry appends e.
func (l *Ledger) AddEntry(e Entry) {
	l.Add(e.Num, acksOf(e.Acks), e.Idempotent, e.Intended, e.Acked, e.Status, e.Error, e.Partition, e.Offset, e.LeaderEpoch)
}

// AddMessage appends m; an id that MessageID does not spell is kept as is.
func (l *Ledger) AddMessage(m Message) {
	n, ok := ParseMessageID([]byte(m.ID))
	if !ok {
		if l.ids == nil {
			l.ids = map[int32]string{}
		}
		l.ids[int32(len(l.num))] = m.ID
		n = -1
	}
	l.Add(n, acksOf(m.Acks), m.Idempotent, m.Intended, m.Acked, m.Status, m.Error, m.Partition, m.Offset, m.LeaderEpoch)
}

// AddLedger appends every entry of o.
func (l *Ledger) AddLedger(o *Ledger) {
	if o.Len() == 0 {
		return
	}
	base := int32(len(l.num))
	l.num = append(l.num, o.num...)
	l.intended = append(l.intended, o.intended...)
	l.acked = append(l.acked, o.acked...)
	l.offset = append(l.offset, o.offset...)
	l.partition = append(l.partition, o.partition...)
	l.epoch = append(l.epoch, o.epoch...)
	l.flags = append(l.flags, o.flags...)
	for i, k := range o.errAt {
		l.setError(base+i, o.errs[k-1])
	}
	for i, id := range o.ids {
		if l.ids == nil {
			l.ids = map[int32]string{}
		}
		l.ids[base+i] = id
	}
}

// Snapshot returns the entries so far as a ledger of their own: columns
// shared up to their current length (later appends to l do not show and
// cannot overwrite them), maps copied. Call it under the lock that guards
// the appends; read the snapshot without it.
func (l *Ledger) Snapshot() *Ledger {
	if l == nil {
		return &Ledger{}
	}
	return l.Prefix(len(l.num))
}

// Prefix returns the first n entries as a ledger of their own, as
// Snapshot does.
func (l *Ledger) Prefix(n int) *Ledger {
	if l == nil {
		return &Ledger{}
	}
	n = min(max(n, 0), len(l.num))
	s := &Ledger{
		num: l.num[:n:n], intended: l.intended[:n:n], acked: l.acked[:n:n], offset: l.offset[:n:n],
		partition: l.partition[:n:n], epoch: l.epoch[:n:n], flags: l.flags[:n:n],
		errs: l.errs[:len(l.errs):len(l.errs)],
	}
	for i, k := range l.errAt {
		if int(i) < n {
			if s.errAt == nil {
				s.errAt = map[int32]uint32{}
			}
			s.errAt[i] = k
		}
	}
	for i, id := range l.ids {
		if int(i) < n {
			if s.ids == nil {
				s.ids = map[int32]string{}
			}
			s.ids[i] = id
		}
	}
	return s
}

// Column accessors of entry i.

// Num is the message number of entry i (-1 when its id is not MessageID's).
func (l *Ledger) Num(i int) int64 { return l.num[i] }

// ID is the message id of entry i.
func (l *Ledger) ID(i int) string {
	if id, ok := l.ids[int32(i)]; ok {
		return id
	}
	return MessageID(l.num[i])
}

// Status is the outcome of entry i.
func (l *Ledger) Status(i int) Status { return statusCodes[l.flags[i]&flagStatus] }

// Intended is when entry i was meant to be sent.
func (l *Ledger) Intended(i int) time.Time { return fromUnixNano(l.intended[i]) }

// Acked is when the outcome of entry i arrived (zero when none did).
func (l *Ledger) Acked(i int) time.Time { return fromUnixNano(l.acked[i]) }

// Partition is the partition of entry i.
func (l *Ledger) Partition(i int) int32 { return l.partition[i] }

// Offset is the acknowledged offset of entry i, -1 when none.
func (l *Ledger) Offset(i int) int64 { return l.offset[i] }

// Latency is entry i's ack latency, as MessageLatency says.
func (l *Ledger) Latency(i int) (time.Duration, bool) {
	if l.flags[i]&flagStatus != 0 || l.acked[i] == 0 || l.intended[i] == 0 {
		return 0, false
	}
	return max(time.Duration(l.acked[i]-l.intended[i]), 0), true
}

// Entry returns entry i.
func (l *Ledger) Entry(i int) Entry {
	f := l.flags[i]
	e := Entry{
		Num: l.num[i], Acks: acksCodes[f>>flagAcksShift&3], Idempotent: f&flagIdempotent != 0,
		Intended: l.Intended(i), Acked: l.Acked(i), Status: statusCodes[f&flagStatus],
		Partition: l.partition[i], Offset: l.offset[i], LeaderEpoch: l.epoch[i],
	}
	if k, ok := l.errAt[int32(i)]; ok {
		e.Error = l.errs[k-1]
	}
	return e
}

// Message returns entry i as a Message.
func (l *Ledger) Message(i int) Message {
	e := l.Entry(i)
	return Message{ID: l.ID(i), Acks: e.Acks, Idempotent: e.Idempotent, Intended: e.Intended, Acked: e.Acked,
		Status: e.Status, Error: e.Error, Partition: e.Partition, Offset: e.Offset, LeaderEpoch: e.LeaderEpoch}
}

// All yields every entry as a Message, in ledger order.
func (l *Ledger) All() iter.Seq2[int, Message] {
	return func(yield func(int, Message) bool) {
		for i := 0; i < l.Len(); i++ {
			if !yield(i, l.Message(i)) {
				return
			}
		}
	}
}

// key is how classification tells ids apart without strings: the message
// number for ids MessageID spells, else -1 - the index of the id in a
// table of other ids.
func (l *Ledger) key(i int, other *idTable) int64 {
	if id, ok := l.ids[int32(i)]; ok {
		return other.key(id)
	}
	return l.num[i]
}

// idTable numbers ids that are not MessageID's spelling: sentinels,
// foreign records, hand-made ids.
type idTable struct {
	ids []string
	idx map[string]int64
}

// key returns the key of id: its message number, or -1-i for the i-th
// other id.
func (t *idTable) key(id string) int64 {
	if n, ok := ParseMessageID([]byte(id)); ok {
		return n
	}
	return t.keyOther(id)
}

// keyBytes is key without allocating for message ids.
func (t *idTable) keyBytes(id []byte) int64 {
	if n, ok := ParseMessageID(id); ok {
		return n
	}
	if k, ok := t.idx[string(id)]; ok {
		return k
	}
	return t.keyOther(string(id))
}

func (t *idTable) keyOther(id string) int64 {
	if k, ok := t.idx[id]; ok {
		return k
	}
	if t.idx == nil {
		t.idx = map[string]int64{}
	}
	k := -1 - int64(len(t.ids))
	t.ids = append(t.ids, id)
	t.idx[id] = k
	return k
}

// id returns the id of a key.
func (t *idTable) id(k int64) string {
	if k >= 0 {
		return MessageID(k)
	}
	return t.ids[-1-k]
}

func (l *Ledger) String() string { return fmt.Sprintf("Ledger(%d entries)", l.Len()) }

// HighestAcked returns, per partition, the highest offset a message of the
// topic was acknowledged at.
func (t Topic) HighestAcked() map[int32]int64 {
	out := map[int32]int64{}
	note := func(p int32, off int64) {
		if cur, ok := out[p]; !ok || off > cur {
			out[p] = off
		}
	}
	for _, m := range t.Messages {
		if m.Status == StatusOK {
			note(m.Partition, m.Offset)
		}
	}
	if l := t.Ledger; l != nil {
		for i, f := range l.flags {
			if f&flagStatus == 0 {
				note(l.partition[i], l.offset[i])
			}
		}
	}
	return out
}
