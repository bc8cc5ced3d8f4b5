package netdelay

import "math/rand/v2"

// schedule holds the packets waiting for their verdict, by the time each
// may leave: one min-heap over a slice that grows to the most packets
// held at once and is then reused, so a packet costs no allocation and no
// goroutine, and the releaser wakes once per due time, not per packet.
//
// A packet leaves delay after it was read, plus a uniform draw of 0 to
// jitter (never less than delay: the link is that slow at least). With
// jitter, a later packet of a flow may draw less than an earlier one;
// it then leaves with the earlier one instead, so that packets of a
// connection keep their order, as on a real link, where TCP would take a
// reordering for a loss. Flows are told apart by a hash of their
// addresses, protocol and ports into flowSlots slots: two flows that
// share a slot keep each other's order, which costs one of them at most
// the other's jitter.
type schedule struct {
	delay, jitter int64 // nanoseconds
	rng           *rand.Rand
	heap          []entry
	seq           uint64            // ties: first read, first out
	last          *[flowSlots]int64 // by flow slot: the latest leave time given
	held          int               // most packets held at once
}

const flowSlots = 1 << 12

type entry struct {
	at  int64 // when it may leave, in nanoseconds of the caller's clock
	seq uint64
	id  uint32
}

func newSchedule(delay, jitter int64, seed uint64) *schedule {
	s := &schedule{delay: delay, jitter: jitter, heap: make([]entry, 0, 1024)}
	if jitter > 0 {
		s.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		s.last = new([flowSlots]int64)
	}
	return s
}

// add holds packet p, read at now, and returns when it may leave.
func (s *schedule) add(p packet, now int64) int64 {
	at := now + s.delay
	if s.jitter > 0 {
		at += s.rng.Int64N(s.jitter + 1)
		slot := &s.last[p.flow%flowSlots]
		at = max(at, *slot)
		*slot = at
	}
	s.seq++
	s.push(entry{at: at, seq: s.seq, id: p.id})
	s.held = max(s.held, len(s.heap))
	return at
}

// next is when the first held packet may leave; ok is false when none is
// held.
func (s *schedule) next() (at int64, ok bool) {
	if len(s.heap) == 0 {
		return 0, false
	}
	return s.heap[0].at, true
}

// due removes the packets that may leave at now, in order, calling f with
// each id.
func (s *schedule) due(now int64, f func(id uint32)) {
	for len(s.heap) > 0 && s.heap[0].at <= now {
		f(s.pop().id)
	}
}

// all removes every held packet, in order, calling f with each id.
func (s *schedule) all(f func(id uint32)) {
	for len(s.heap) > 0 {
		f(s.pop().id)
	}
}

func (s *schedule) len() int { return len(s.heap) }

func (a entry) before(b entry) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

func (s *schedule) push(e entry) {
	s.heap = append(s.heap, e)
	h := s.heap
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].before(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (s *schedule) pop() entry {
	h := s.heap
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h[l].before(h[m]) {
			m = l
		}
		if r < n && h[r].before(h[m]) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	s.heap = h
	return top
}
