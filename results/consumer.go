package results

import (
	"cmp"
	"maps"
	"slices"
	"time"
)

// Consumer is one consumer group of a run: the consume step that started
// it, every member process, everything the members did (deliveries,
// effects, skips, commits, crashes), the committed offsets the admin API
// reported over time, and the tally made after the run. The members are
// processes of their own; the engine records what they report on their
// pipes, and reads their SQLite store at the end.
type Consumer struct {
	Group   string          `json:"group"`  // real group name, with the per-run suffix
	Label   string          `json:"label"`  // as written in the runbook
	Topic   string          `json:"topic"`  // label of the topic it reads
	Commit  string          `json:"commit"` // auto, after or before
	Dedup   string          `json:"dedup"`  // none, table or transactional
	Store   string          `json:"store"`  // the SQLite file, relative to results.json
	Pos     string          `json:"pos"`    // the consume step's file:line:col
	Members []Member        `json:"members"`
	Events  []ConsumerEvent `json:"events"`
	Offsets []OffsetSample  `json:"offsets"` // change points of the committed offsets, sampled through the admin API
	// OffsetSampling says how finely Offsets was sampled; nil while
	// Offsets holds every sample taken.
	OffsetSampling *Sampling         `json:"offsets_sampling,omitempty"`
	Tally          *ConsumerTally    `json:"tally,omitempty"`
	Settings       map[string]string `json:"settings,omitempty"` // the consume step's other flags: batch, work, auto-commit-interval
}

// Member is one process of a consumer group.
type Member struct {
	N     int       `json:"n"` // 1 for the consume step's member, then 2, 3... per start consumer
	PID   int       `json:"pid"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end,omitempty"`
	// How is how the process ended: "crashed" (SIGKILL, by crash consumer
	// or --crash-at), "stopped" (cleanly, by stop consumer or the end of
	// the run) or "failed" (it exited with an error of its own).
	How    string `json:"how,omitempty"`
	Reason string `json:"reason,omitempty"` // what crashed or stopped it, or its error
}

// Member ends.
const (
	MemberCrashed = "crashed"
	MemberStopped = "stopped"
	MemberFailed  = "failed"
)

// ConsumerEvent is one thing a member did, reported on its pipe as it
// happened. Offset is the record's offset, except for commit events, where
// it is the committed offset: the next record the group will read.
type ConsumerEvent struct {
	At        time.Time `json:"at"`
	Member    int       `json:"member"`
	Kind      string    `json:"kind"`
	Partition int32     `json:"partition"`
	Offset    int64     `json:"offset"`
	ID        string    `json:"id,omitempty"`    // message id, m-001
	Event     string    `json:"event,omitempty"` // event id, when not the message id
}

// Consumer event kinds, in the order a record meets them.
const (
	EventDeliver = "deliver" // the record was handed to the handler by a poll
	EventSkip    = "skip"    // its event id was in event_handled: not applied again
	EventEffect  = "effect"  // its effect (like count, applied count) is committed to the store
	EventHandled = "handled" // its event id is in event_handled (dedup table and transactional)
	EventCommit  = "commit"  // the group's offset for the partition was committed
	EventCrash   = "crash"   // the member was killed here (--crash-at)
)

// OffsetSample is a group's committed offset of one partition at one
// moment, asked of the group coordinator (OffsetFetch); -1 when none.
type OffsetSample struct {
	At        time.Time `json:"at"`
	Partition int32     `json:"partition"`
	Committed int64     `json:"committed"`
}

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

// Consumer returns the group of the run by its label.
func (r Run) Consumer(label string) (*Consumer, bool) {
	i := slices.IndexFunc(r.Consumers, func(c Consumer) bool { return c.Label == label })
	if i < 0 {
		return nil, false
	}
	return &r.Consumers[i], true
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
	type rec struct {
		p  int32
		o  int64
		id string
		ev string
	}
	var order []rec
	times := map[rec]int{}
	effectAt := map[[2]int64]time.Time{} // first effect of a record
	commitAt := map[[2]int64]time.Time{} // first commit past a record
	var commits []ConsumerEvent
	for _, e := range events {
		switch e.Kind {
		case EventCommit:
			commits = append(commits, e)
		case EventEffect:
			if k := [2]int64{int64(e.Partition), e.Offset}; effectAt[k].IsZero() {
				effectAt[k] = e.At
			}
		}
	}
	for _, e := range events {
		switch e.Kind {
		case EventDeliver:
			r := rec{e.Partition, e.Offset, e.ID, cmp.Or(e.Event, e.ID)}
			if times[r] == 0 {
				order = append(order, r)
			}
			times[r]++
			t.Deliveries++
		case EventSkip:
			t.Skipped = append(t.Skipped, e.ID)
		case EventEffect:
			t.Effects++
		}
	}
	t.Delivered = len(order)
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
	// The first commit past each record: per partition, records by
	// offset, swept once by the commits in the order they happened.
	byPart := map[int32][]rec{}
	for _, r := range order {
		byPart[r.p] = append(byPart[r.p], r)
	}
	for p, recs := range byPart {
		slices.SortFunc(recs, func(a, b rec) int { return cmp.Compare(a.o, b.o) })
		next := 0
		for _, c := range commits {
			for ; c.Partition == p && next < len(recs) && recs[next].o < c.Offset; next++ {
				commitAt[[2]int64{int64(p), recs[next].o}] = c.At
			}
		}
	}
	for _, r := range order {
		k := [2]int64{int64(r.p), r.o}
		if c := commitAt[k]; !c.IsZero() {
			// Early: committed before this record's effect, or never
			// applied at all (a record skipped because another record
			// of its event took effect is not).
			if e := effectAt[k]; e.IsZero() && applied[r.ev] == 0 || !e.IsZero() && c.Before(e) {
				t.CommittedEarly = append(t.CommittedEarly, r.id)
			}
		}
		if times[r] > 1 {
			t.Redelivered = append(t.Redelivered, r.id)
		}
		if applied[r.ev] > 0 {
			continue
		}
		if c, ok := committed[r.p]; ok && r.o < c {
			t.Unapplied = append(t.Unapplied, r.id)
		} else {
			t.Pending = append(t.Pending, r.id)
		}
	}
	for _, ids := range [][]string{t.Redelivered, t.Skipped, t.Unapplied, t.Pending, t.CommittedEarly} {
		SortIDs(ids)
	}
	return t
}
