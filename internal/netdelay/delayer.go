package netdelay

import (
	"errors"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// delayer delays the packets of one queue: a reader takes them from the
// socket, keeps a copy of each in a slot and drops the original (see
// send.go); a releaser sends each copy when it is due. Both hold mu while
// they touch the schedule and the slots.
type delayer struct {
	q     *queue
	out   *sender
	start time.Time // the clock's origin: times are nanoseconds since

	mu       sync.Mutex
	s        *schedule // by slot
	slots    [][]byte  // copies of the packets held, reused once sent
	free     []uint32  // slots not in use
	stopping bool      // every packet is sent as it is read
	sent     uint64    // packets sent so far
	failed   uint64    // packets the raw socket refused
	lastErr  error     // why the last of them was refused
	wake     chan struct{}
}

func newDelayer(q *queue, out *sender, delay, jitter time.Duration, seed uint64) *delayer {
	return &delayer{
		q: q, out: out, start: time.Now(),
		s:    newSchedule(int64(delay), int64(jitter), seed),
		wake: make(chan struct{}, 1),
	}
}

func (d *delayer) now() int64 { return int64(time.Since(d.start)) }

// hold copies data into a free slot and returns the slot. Called with mu
// held.
func (d *delayer) hold(data []byte) uint32 {
	if n := len(d.free); n > 0 {
		slot := d.free[n-1]
		d.free = d.free[:n-1]
		d.slots[slot] = append(d.slots[slot][:0], data...)
		return slot
	}
	d.slots = append(d.slots, append(make([]byte, 0, max(len(data), 2048)), data...))
	return uint32(len(d.slots) - 1)
}

// send sends slot's packet and frees the slot. Called with mu held.
func (d *delayer) send(slot uint32) {
	d.transmit(d.slots[slot])
	d.free = append(d.free, slot)
}

// transmit sends one packet and counts it. Called with mu held.
func (d *delayer) transmit(pkt []byte) {
	if err := d.out.send(pkt); err != nil {
		d.failed++
		d.lastErr = err
		return
	}
	d.sent++
}

// read takes packets from the socket until it fails. It takes what is
// ready without waiting before it sends the drops in one write, and
// wakes the releaser only when a packet is due before the one it waits
// for.
func (d *delayer) read() error {
	buf := make([]byte, 1<<17)
	got := make([]packet, 0, 64)
	for {
		earlier := false
		for flags := 0; len(d.q.out) < 64*verdictSz; flags = unix.MSG_DONTWAIT {
			var err error
			got, err = d.q.read(buf, got[:0], flags)
			if errors.Is(err, unix.EAGAIN) {
				break
			}
			if err != nil {
				if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ENOBUFS) {
					continue
				}
				return err
			}
			if d.take(got) {
				earlier = true
			}
		}
		if err := d.q.flush(); err != nil {
			return err
		}
		if earlier {
			select {
			case d.wake <- struct{}{}:
			default:
			}
		}
	}
}

// take holds a copy of each packet, due after the delay, and queues the
// original's drop; it reports whether one is due before the packet the
// releaser waits for.
func (d *delayer) take(got []packet) (earlier bool) {
	if len(got) == 0 {
		return false
	}
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	head, held := d.s.next()
	earlier = !held
	for _, p := range got {
		d.q.drop(p.id)
		if d.stopping {
			d.transmit(p.data)
			continue
		}
		if at := d.s.add(packet{id: d.hold(p.data), flow: p.flow}, now); held && at < head {
			earlier = true
		}
	}
	return earlier
}

// release sends each packet when it is due until done closes.
func (d *delayer) release(done <-chan struct{}) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	send := d.send
	for {
		d.mu.Lock()
		now := d.now()
		d.s.due(now, send)
		next, held := d.s.next()
		d.mu.Unlock()
		wait := time.Hour
		if held {
			wait = time.Duration(next - now)
		}
		timer.Reset(wait)
		select {
		case <-timer.C:
		case <-d.wake:
		case <-done:
			return
		}
	}
}

// stop sends every packet held now, and every one read from here on as
// it comes.
func (d *delayer) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopping = true
	d.s.all(d.send)
}

// stats is what the delayer did so far.
type stats struct {
	Sent, Failed uint64
	Held         int // most packets held at once
	LastErr      error
}

func (d *delayer) stats() stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return stats{d.sent, d.failed, d.s.held, d.lastErr}
}
