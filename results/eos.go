package results

import (
	"maps"
	"slices"
	"time"
)

// EOSCheck is the check of a consume-transform-produce group (transform
// IN --to OUT): every input record the group had to process, as a
// read_committed read of IN found it, must have its derived record in OUT
// exactly once among the committed records (a read_committed read of OUT).
// A derived record's value starts with its input's id, which is how the
// two are matched. Every finding carries its proof: the ids and offsets.
type EOSCheck struct {
	At        time.Time       `json:"at"`
	In        string          `json:"in"`         // real name of the input topic
	Out       string          `json:"out"`        // real name of the output topic
	EOS       bool            `json:"eos"`        // offsets committed in the output's transactions
	Inputs    int             `json:"inputs"`     // input records (committed, not sentinels)
	Outputs   int             `json:"outputs"`    // committed records of OUT
	Once      int             `json:"once"`       // inputs whose derived record OUT holds exactly once
	InHW      map[int32]int64 `json:"in_hw"`      // IN's high watermarks the read reached
	OutHW     map[int32]int64 `json:"out_hw"`     // OUT's high watermarks
	OutStable map[int32]int64 `json:"out_stable"` // OUT's last stable offsets
	// Duplicates are inputs whose derived record OUT holds more than once
	// among committed records: the offsets in OUT are the proof.
	Duplicates []EOSDuplicate `json:"duplicates"`
	// Missing are inputs whose derived record OUT does not hold, although
	// the read of OUT reached its last stable offset: processing lost.
	Missing []EOSMissing `json:"missing"`
	// Strays are committed records of OUT that name no input record.
	Strays []EOSCopy `json:"strays"`
}

// EOSDuplicate is an input record found derived more than once in OUT.
type EOSDuplicate struct {
	ID        string    `json:"id"`
	Partition int32     `json:"partition"` // the input's, in IN
	Offset    int64     `json:"offset"`
	Out       []EOSCopy `json:"out"` // every derived copy in OUT
}

// EOSCopy is a record of OUT: the input id its value names, where it is.
type EOSCopy struct {
	ID        string `json:"id"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

// EOSMissing is an input record without a derived record in OUT.
type EOSMissing struct {
	ID        string `json:"id"`
	Partition int32  `json:"partition"` // the input's, in IN
	Offset    int64  `json:"offset"`
}

// DuplicateIDs are the ids of the duplicated inputs, sorted.
func (c *EOSCheck) DuplicateIDs() []string {
	var ids []string
	for _, d := range c.Duplicates {
		ids = append(ids, d.ID)
	}
	return sortedIDs(ids)
}

// MissingIDs are the ids of the missing inputs, sorted.
func (c *EOSCheck) MissingIDs() []string {
	var ids []string
	for _, m := range c.Missing {
		ids = append(ids, m.ID)
	}
	return sortedIDs(ids)
}

// EOSRead is one read_committed read of a topic for CheckEOS, as a
// group_input event stores it.
type EOSRead struct {
	Name    string          `json:"name"`
	Records *Records        `json:"records"`
	HW      map[int32]int64 `json:"high_watermarks"`
	Stable  map[int32]int64 `json:"last_stable"`
}

// CheckEOS matches the derived records of out with the inputs of in.
// Sentinels are skipped on both sides. An input id found at several
// offsets of IN (a producer's retry) counts as one input, at its first
// offset.
func CheckEOS(in, out EOSRead, eos bool) EOSCheck {
	c := EOSCheck{
		At: time.Now().UTC(), In: in.Name, Out: out.Name, EOS: eos,
		InHW: maps.Clone(in.HW), OutHW: maps.Clone(out.HW), OutStable: maps.Clone(out.Stable),
		Duplicates: []EOSDuplicate{}, Missing: []EOSMissing{}, Strays: []EOSCopy{},
	}
	type input struct {
		p int32
		o int64
	}
	inputs := map[string]input{}
	var order []string
	for i := range in.Records.Len() {
		id := in.Records.ID(i)
		if IsSentinel(id) {
			continue
		}
		if _, ok := inputs[id]; !ok {
			inputs[id] = input{in.Records.Partition[i], in.Records.Offset[i]}
			order = append(order, id)
		}
	}
	copies := map[string][]EOSCopy{}
	for i := range out.Records.Len() {
		id := out.Records.ID(i)
		if IsSentinel(id) {
			continue
		}
		c.Outputs++
		rec := EOSCopy{ID: id, Partition: out.Records.Partition[i], Offset: out.Records.Offset[i]}
		if _, ok := inputs[id]; !ok {
			c.Strays = append(c.Strays, rec)
			continue
		}
		copies[id] = append(copies[id], rec)
	}
	c.Inputs = len(order)
	SortIDs(order)
	for _, id := range order {
		x := inputs[id]
		switch n := len(copies[id]); {
		case n == 0:
			c.Missing = append(c.Missing, EOSMissing{ID: id, Partition: x.p, Offset: x.o})
		case n == 1:
			c.Once++
		default:
			out := slices.Clone(copies[id])
			c.Duplicates = append(c.Duplicates, EOSDuplicate{ID: id, Partition: x.p, Offset: x.o, Out: out})
		}
	}
	return c
}
