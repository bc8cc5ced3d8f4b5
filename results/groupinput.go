package results

import "time"

// A consumer group's tally is derived, like a read's, from an input the
// evidence stores first: a group_input event holds what the tally is made
// of besides the members' reports (which consumer_events events hold
// already): the effects the group's store counted, the committed and end
// offsets, and for a transform the two reads of its exactly-once check.
// The engine derives the tally from that event (GroupInput.Tally), and
// Recheck derives it again.

// KindGroupInput is the kind of a GroupInput event.
const KindGroupInput = "group_input"

// GroupInput is the data of a group_input event.
type GroupInput struct {
	Group string    `json:"group"`
	At    time.Time `json:"at"`
	// Events is how many of the group's consumer events the tally
	// counted (the first Events, in the order the evidence holds them).
	Events int `json:"events"`
	// Store is true when the effects are the store's (Applied, Likes,
	// Handled); false for a transform without one, whose effects are the
	// copies of each input found in the output.
	Store     bool             `json:"store"`
	Applied   map[string]int64 `json:"applied,omitempty"` // effects per event id
	Likes     map[string]int64 `json:"likes,omitempty"`   // the like count per key
	Handled   int              `json:"handled"`           // events the store marked handled
	Committed map[int32]int64  `json:"committed"`         // the group's committed offsets, asked of the cluster
	End       map[int32]int64  `json:"end"`               // the end offsets when the members stopped
	// In and Out are a transform's input and output topics as its
	// exactly-once check read them (read_committed); EOS whether it ran
	// with exactly-once semantics. Nil for a consume group.
	In  *EOSRead `json:"in,omitempty"`
	Out *EOSRead `json:"out,omitempty"`
	EOS bool     `json:"eos,omitempty"`
}

// Tally is the group's tally from its input and the members' reports
// (the group's consumer events, of which it counts the first Events).
func (g GroupInput) Tally(events []ConsumerEvent) ConsumerTally {
	events = events[:min(g.Events, len(events))]
	applied := g.Applied
	var check *EOSCheck
	if g.In != nil && g.Out != nil {
		c := CheckEOS(*g.In, *g.Out, g.EOS)
		c.At = g.At
		check = &c
		if !g.Store {
			applied = outputCopies(c, g.Out.Records)
		}
	}
	t := TallyConsumer(events, applied, g.Likes, g.Handled, g.Committed, g.End)
	t.At, t.EOS = g.At, check
	return t
}

// outputCopies are the copies of each input a transform's output holds:
// a transform without a store applies an event by writing its record.
func outputCopies(c EOSCheck, out *Records) map[string]int64 {
	copies := map[string]int64{}
	for _, d := range c.Duplicates {
		copies[d.ID] = int64(len(d.Out))
	}
	for i := range out.Len() {
		if id := out.ID(i); copies[id] == 0 && !IsSentinel(id) {
			copies[id] = 1
		}
	}
	return copies
}
