package results

import (
	"cmp"
	"maps"
	"slices"
	"time"
)

// ConsumerTally is what became of every message the group was given,
// from the members' events, the store and the committed offsets read
// after the run ended. Id lists are message ids sorted by number.
type ConsumerTally struct {
	At        time.Time       `json:"at"`
	Committed map[int32]int64 `json:"committed"` // per partition, from the admin API; -1: none
	End       map[int32]int64 `json:"end"`       // log end offsets of the topic

	Delivered   int      `json:"delivered"`   // records handed to a member (each partition and offset once)
	Deliveries  int      `json:"deliveries"`  // every hand-over, redeliveries included
	Redelivered []string `json:"redelivered"` // records handed over more than once
	Applied     int      `json:"applied"`     // event ids whose effect is in the store
	// AppliedTwice are the event ids the store counts more than once: the
	// like count went up again for the same event.
	AppliedTwice []AppliedEvent `json:"applied_twice"`
	Skipped      []string       `json:"skipped"` // deliveries dedup skipped, by message id
	// Unapplied are records below the committed offset whose event never
	// took effect: the group will not read them again, so their processing
	// is lost in the consumer.
	Unapplied []string `json:"unapplied"`
	// Pending are records delivered, not applied and not below the
	// committed offset: the next member reads them again.
	Pending []string `json:"pending"`
	// CommittedEarly are records whose offset a member committed before
	// their effect was applied (or that were never applied): the article's
	// "acked before processing", by the commits the members reported.
	CommittedEarly []string `json:"committed_early"`

	Likes      map[string]int64 `json:"likes"`       // the store's like count per key ("" for messages without a key)
	StoreTotal int64            `json:"store_total"` // the store's applied counts summed: one per effect
	Effects    int              `json:"effects"`     // effect events the members reported; equal to StoreTotal unless a member died between the two
	// Handled counts the event ids in the store's event_handled table
	// (dedup table and transactional): fewer than Applied when a member
	// died between an effect and its insert.
	Handled int `json:"handled"`
	// EOS is the exactly-once check of a transform group (transform IN
	// --to OUT): nil for a consume group.
	EOS *EOSCheck `json:"eos,omitempty"`
	// Fenced are the members (by number) that reported a fenced event:
	// a successor with their transactional id fenced their producer.
	Fenced []int `json:"fenced,omitempty"`
}

// AppliedEvent is an event id and how many times its effect was applied.
type AppliedEvent struct {
	Event string `json:"event"`
	Times int64  `json:"times"`
}

// CommittedTotal sums the committed offsets of every partition (none
// counts 0): committed(G) of an expectation.
func (t *ConsumerTally) CommittedTotal() int64 {
	var n int64
	for _, o := range t.Committed {
		n += max(o, 0)
	}
	return n
}

// TallyConsumer tallies a group: events are every report of its members
// in order; applied and likes the store's counts by event id and by
// product; committed and end the committed and end offsets per partition
// after the members stopped. A record's event id is its message id unless
// the record carried another.
func TallyConsumer(events []ConsumerEvent, applied, likes map[string]int64, handled int, committed, end map[int32]int64) ConsumerTally {
	t := ConsumerTally{
		At: time.Now().UTC(), Committed: map[int32]int64{}, End: map[int32]int64{}, Likes: map[string]int64{},
		Redelivered: []string{}, AppliedTwice: []AppliedEvent{}, Skipped: []string{}, Unapplied: []string{}, Pending: []string{}, CommittedEarly: []string{},
	}
	maps.Copy(t.End, end)
	for p := range end {
		t.Committed[p] = -1
	}
	maps.Copy(t.Committed, committed)
	maps.Copy(t.Likes, likes)
	t.Handled = handled
	d := t.countDeliveries(events)
	t.countApplied(applied)
	d.firstCommits(events)
	for _, r := range d.order {
		t.classify(d, r, applied, committed)
	}
	for _, ids := range [][]string{t.Redelivered, t.Skipped, t.Unapplied, t.Pending, t.CommittedEarly} {
		SortIDs(ids)
	}
	return t
}

// delivered is a record handed to a member: where it sat, its message id
// and its event id.
type delivered struct {
	p  int32
	o  int64
	id string
	ev string
}

// deliveries is what the members' events say of each record delivered.
type deliveries struct {
	order    []delivered            // in order of first delivery
	times    map[delivered]int      // how often each was delivered
	effectAt map[[2]int64]time.Time // first effect of a record, by partition and offset
	commitAt map[[2]int64]time.Time // first commit past a record
}

// countDeliveries counts deliveries, skips and effects, and notes when
// each record first took effect.
func (t *ConsumerTally) countDeliveries(events []ConsumerEvent) *deliveries {
	d := &deliveries{times: map[delivered]int{}, effectAt: map[[2]int64]time.Time{}, commitAt: map[[2]int64]time.Time{}}
	for _, e := range events {
		switch e.Kind {
		case EventDeliver:
			r := delivered{e.Partition, e.Offset, e.ID, cmp.Or(e.Event, e.ID)}
			if d.times[r] == 0 {
				d.order = append(d.order, r)
			}
			d.times[r]++
			t.Deliveries++
		case EventSkip:
			t.Skipped = append(t.Skipped, e.ID)
		case EventFenced:
			if !slices.Contains(t.Fenced, e.Member) {
				t.Fenced = append(t.Fenced, e.Member)
			}
		case EventEffect:
			t.Effects++
			if k := [2]int64{int64(e.Partition), e.Offset}; d.effectAt[k].IsZero() {
				d.effectAt[k] = e.At
			}
		}
	}
	t.Delivered = len(d.order)
	return d
}

// countApplied reads the store's counts by event id.
func (t *ConsumerTally) countApplied(applied map[string]int64) {
	for ev, n := range applied {
		t.StoreTotal += n
		if n > 0 {
			t.Applied++
		}
		if n > 1 {
			t.AppliedTwice = append(t.AppliedTwice, AppliedEvent{Event: ev, Times: n})
		}
	}
	slices.SortFunc(t.AppliedTwice, func(a, b AppliedEvent) int {
		if LessID(a.Event, b.Event) {
			return -1
		}
		return 1
	})
}

// firstCommits finds the first commit past each record: per partition,
// records by offset, swept once by the commits in the order they happened.
func (d *deliveries) firstCommits(events []ConsumerEvent) {
	var commits []ConsumerEvent
	for _, e := range events {
		if e.Kind == EventCommit {
			commits = append(commits, e)
		}
	}
	byPart := map[int32][]delivered{}
	for _, r := range d.order {
		byPart[r.p] = append(byPart[r.p], r)
	}
	for p, recs := range byPart {
		slices.SortFunc(recs, func(a, b delivered) int { return cmp.Compare(a.o, b.o) })
		next := 0
		for _, c := range commits {
			for ; c.Partition == p && next < len(recs) && recs[next].o < c.Offset; next++ {
				d.commitAt[[2]int64{int64(p), recs[next].o}] = c.At
			}
		}
	}
}

// classify puts one delivered record in the lists it belongs to.
func (t *ConsumerTally) classify(d *deliveries, r delivered, applied map[string]int64, committed map[int32]int64) {
	k := [2]int64{int64(r.p), r.o}
	if c := d.commitAt[k]; !c.IsZero() {
		// Early: committed before this record's effect, or never applied
		// at all (a record skipped because another record of its event
		// took effect is not).
		if e := d.effectAt[k]; e.IsZero() && applied[r.ev] == 0 || !e.IsZero() && c.Before(e) {
			t.CommittedEarly = append(t.CommittedEarly, r.id)
		}
	}
	if d.times[r] > 1 {
		t.Redelivered = append(t.Redelivered, r.id)
	}
	if applied[r.ev] > 0 {
		return
	}
	if c, ok := committed[r.p]; ok && r.o < c {
		t.Unapplied = append(t.Unapplied, r.id)
	} else {
		t.Pending = append(t.Pending, r.id)
	}
}
