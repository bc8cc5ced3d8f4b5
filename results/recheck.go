package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Recheck derives every tally of r again from what its reads stored (the
// read events, the ledgers and the transactions) with the checkers of
// this build, and says where a derived tally differs from the recorded
// one: what a fixed checker changes in published evidence, or proof that
// the evidence holds up. A tally recorded without its read cannot be
// derived: in evidence from before reads were stored it is counted as
// such; in evidence that says every read was stored it is a difference.
func Recheck(r *Results) RecheckReport {
	var rep RecheckReport
	for i := range r.Runs {
		rep.add(recheckRun(&r.Runs[i], r.Provenance.ReadsStored))
	}
	return rep
}

// RecheckReport is what Recheck found.
type RecheckReport struct {
	Rechecked   int          // tallies derived again
	Underived   int          // tallies recorded without their read
	Differences []Difference // every field of a derived tally that differs
}

func (r *RecheckReport) add(o RecheckReport) {
	r.Rechecked += o.Rechecked
	r.Underived += o.Underived
	r.Differences = append(r.Differences, o.Differences...)
}

// Difference is one field of a tally that a re-check derived otherwise
// than the run recorded.
type Difference struct {
	Run      int
	Tally    string // which tally: "final read of t", "read of t at r.md:12:1"
	Field    string // its JSON name
	Recorded string // JSON
	Derived  string // JSON
}

func (d Difference) String() string {
	return fmt.Sprintf("run %d, %s: %s recorded %s, derived %s", d.Run, d.Tally, d.Field, clip(d.Recorded), clip(d.Derived))
}

// clip shortens a long JSON value for a line.
func clip(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}

// tallyKey names a tally of a run: the final read's of a topic, or a read
// step's.
type tallyKey struct {
	final bool
	label string
	pos   string
}

func (k tallyKey) String() string {
	if k.final {
		return "final read of " + k.label
	}
	return "read of " + k.label + " at " + k.pos
}

// recheckRun derives the tallies of one run from its reads, in the order
// they were made (each read's earlier ones are the reads of the topic
// before it), and compares them with those recorded.
func recheckRun(run *Run, stored bool) RecheckReport {
	derived := map[tallyKey]*Tally{}
	seen := map[string]*Seen{}
	for _, e := range run.Reads {
		ledger := topicNamed(run, e.Topic)
		txns := transactionsOf(run, e.Topic)
		k := tallyKey{final: e.Final, label: e.Label, pos: e.Pos}
		if e.View {
			if t := derived[k]; t != nil {
				t.Transactions = append(t.Transactions, e.TxnCheck(ledger, txns))
			}
			continue
		}
		if seen[e.Label] == nil {
			seen[e.Label] = &Seen{}
		}
		t := e.Tally(ledger, txns, seen[e.Label])
		seen[e.Label].Remember(e.Records)
		derived[k] = &t
	}
	var rep RecheckReport
	for _, c := range run.Consumers {
		rep.add(recheckGroup(run.Number, c, stored))
	}
	for _, rec := range slices.Concat(run.Tallies, run.Final) {
		k := tallyKey{final: rec.Final, label: rec.Label, pos: rec.Pos}
		d := derived[k]
		if d == nil && stored {
			rep.Differences = append(rep.Differences, Difference{Run: run.Number, Tally: k.String(), Field: "(read)",
				Recorded: "a tally", Derived: "no read event: the evidence says every read was stored"})
			continue
		}
		if d == nil {
			rep.Underived++
			continue
		}
		rep.Rechecked++
		for _, f := range diffFields(rec, *d) {
			f.Run, f.Tally = run.Number, k.String()
			rep.Differences = append(rep.Differences, f)
		}
	}
	return rep
}

// recheckGroup derives a consumer group's tally from its stored input and
// its members' reports, and compares it with the recorded one.
func recheckGroup(run int, c Consumer, stored bool) RecheckReport {
	var rep RecheckReport
	name := "tally of group " + c.Label
	switch {
	case c.Tally == nil:
		return rep
	case c.Input == nil && stored:
		rep.Differences = append(rep.Differences, Difference{Run: run, Tally: name, Field: "(input)",
			Recorded: "a tally", Derived: "no group_input event: the evidence says every read was stored"})
		return rep
	case c.Input == nil:
		rep.Underived++
		return rep
	}
	rep.Rechecked++
	for _, f := range diffFields(*c.Tally, c.Input.Tally(c.Events)) {
		f.Run, f.Tally = run, name
		rep.Differences = append(rep.Differences, f)
	}
	return rep
}

// topicNamed is the ledger of a run's topic by its real name.
func topicNamed(run *Run, name string) Topic {
	for _, t := range run.Topics {
		if t.Name == name {
			return t
		}
	}
	return Topic{Name: name}
}

// transactionsOf are the transactions of a run's topic, in the order they
// ended.
func transactionsOf(run *Run, topic string) []Transaction {
	var out []Transaction
	for _, x := range run.Transactions {
		if x.Topic == topic {
			out = append(out, x)
		}
	}
	return out
}

// diffFields compares two tallies field by field, as results.json holds
// them.
func diffFields(recorded, derived any) []Difference {
	a, b := jsonFields(recorded), jsonFields(derived)
	var out []Difference
	for _, name := range sortedUnion(a, b) {
		if !bytes.Equal(a[name], b[name]) {
			out = append(out, Difference{Field: name, Recorded: string(a[name]), Derived: string(b[name])})
		}
	}
	return out
}

// jsonFields is a value's JSON object, field by field, in compact form.
func jsonFields(v any) map[string]json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		return map[string]json.RawMessage{"(error)": json.RawMessage(fmt.Sprintf("%q", err.Error()))}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return map[string]json.RawMessage{"(error)": json.RawMessage(fmt.Sprintf("%q", err.Error()))}
	}
	return m
}

// sortedUnion is the sorted names of both maps.
func sortedUnion(a, b map[string]json.RawMessage) []string {
	m := maps.Clone(a)
	maps.Copy(m, b)
	return slices.Sorted(maps.Keys(m))
}
