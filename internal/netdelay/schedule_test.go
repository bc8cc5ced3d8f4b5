package netdelay

import (
	"testing"
	"time"
)

// Without jitter packets leave in the order they came, each the delay
// after it came; with jitter, each between delay and delay+jitter after,
// never before an earlier packet of its flow, and the draws spread.
func TestSchedule(t *testing.T) {
	const ms = int64(time.Millisecond)
	s := newSchedule(100*ms, 0, 1)
	for i := range 100 {
		if at := s.add(packet{id: uint32(i), flow: uint32(i % 7)}, int64(i)*ms); at != int64(i)*ms+100*ms {
			t.Fatalf("packet %d due at %d, want %d", i, at, int64(i)*ms+100*ms)
		}
	}
	var order []uint32
	s.due(150*ms, func(id uint32) { order = append(order, id) })
	if len(order) != 51 || order[0] != 0 || order[50] != 50 {
		t.Errorf("due at 150ms: %v", order)
	}
	s.all(func(id uint32) { order = append(order, id) })
	for i, id := range order {
		if id != uint32(i) {
			t.Fatalf("released out of order: %v", order)
		}
	}

	s = newSchedule(50*ms, 40*ms, 2)
	lastOf := map[uint32]int64{}
	lo, hi := int64(1<<62), int64(0)
	for i := range 10000 {
		now := int64(i) * ms / 10
		flow := uint32(i % 13)
		at := s.add(packet{id: uint32(i), flow: flow}, now)
		if at < now+50*ms {
			t.Fatalf("packet %d due %v after it came, under the delay", i, time.Duration(at-now))
		}
		if at < lastOf[flow] {
			t.Fatalf("packet %d of flow %d due before an earlier one of its flow", i, flow)
		}
		lastOf[flow] = at
		lo, hi = min(lo, at-now), max(hi, at-now)
	}
	if lo > 55*ms || hi < 88*ms { // a flow's packets come 1.3ms apart: its order lifts a few
		t.Errorf("delay 50ms jitter 40ms: packets due %v to %v after they came", time.Duration(lo), time.Duration(hi))
	}
	s.all(func(uint32) {})
	if s.len() > 0 {
		t.Fatal("all left packets held")
	}
}

// A packet costs the schedule no allocation once it has held as many at
// once before.
func TestScheduleAllocs(t *testing.T) {
	s := newSchedule(int64(time.Millisecond), int64(time.Millisecond), 3)
	now := int64(0)
	f := func(uint32) {}
	step := func() {
		for i := range 500 {
			s.add(packet{id: uint32(i), flow: uint32(i)}, now)
		}
		now += int64(10 * time.Millisecond)
		s.due(now, f)
	}
	step()
	if n := testing.AllocsPerRun(20, step); n != 0 {
		t.Errorf("%v allocations for 500 packets", n)
	}
}

// A receive whose last message is not padded to 4 bytes (a packet of an
// odd length) is read to its end.
func TestReadUnpadded(t *testing.T) {
	payload := []byte{0x45, 0, 0, 21, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, 7}
	var q queue
	msg := q.header(nil, msgPacket, 0, 0, 0)
	msg = attr(msg, attrPacketHdr, []byte{0, 0, 0, 42, 8, 0, 3})
	msg = append(msg, 25, 0, attrPayload, 0)
	msg = append(msg, payload...) // 21 bytes, not padded: the message ends here
	binaryPutLen(msg)
	var got []packet
	for b := msg; len(b) >= nlHdrLen; {
		l := len(b)
		if p, ok := parsePacket(b[nlHdrLen+nfgenLen : l]); ok {
			got = append(got, p)
		}
		b = b[min(align(l), len(b)):]
	}
	if len(got) != 1 || got[0].id != 42 || len(got[0].data) != len(payload) {
		t.Errorf("read %+v", got)
	}
}

func binaryPutLen(msg []byte) {
	msg[0], msg[1], msg[2], msg[3] = byte(len(msg)), byte(len(msg)>>8), 0, 0
}
