package explain

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kafkabook/kafkabook/results"
)

// duplicates explains the messages a final read found at more than one
// offset, one finding per batch (messages sent and answered together):
// the faults and leader changes while the send was outstanding. The retry
// that wrote the batch again is the client's and in no log.
func (c *runCtx) duplicates(t results.Tally) []Finding {
	msgs := c.ledger(t.Label, t.DuplicateIDs())
	var out []Finding
	var batch []results.Duplicate
	flush := func() {
		if len(batch) > 0 {
			out = append(out, c.duplicateBatch(t.Label, batch, msgs[batch[0].ID]))
		}
		batch = nil
	}
	for _, d := range t.Duplicates {
		if len(batch) > 0 {
			prev := batch[len(batch)-1]
			a, b := msgs[prev.ID], msgs[d.ID]
			if a.Partition != b.Partition || len(prev.Offsets) == 0 || len(d.Offsets) == 0 || prev.Offsets[0]+1 != d.Offsets[0] {
				flush()
			}
		}
		batch = append(batch, d)
	}
	flush()
	return out
}

func (c *runCtx) duplicateBatch(label string, ds []results.Duplicate, m results.Message) Finding {
	first, last := ds[0], ds[len(ds)-1]
	f := Finding{Kind: FindingDuplicate, Topic: label, Partition: m.Partition, Count: len(ds), Cause: NotVisible, Range: first.ID}
	if len(ds) > 1 {
		f.Range += ".." + last.ID
	}
	ids := f.Range
	if m.ID == "" || m.Acked.IsZero() {
		f.Steps = []Statement{{Text: fmt.Sprintf("%d messages are in the log more than once; their send and answer times are not in the ledger.", len(ds))}}
		return f
	}
	partition := c.partitionName(label, m.Partition)
	f.Steps = append(f.Steps, Statement{Text: fmt.Sprintf("%s (%d messages), the first sent at %s and answered %s at %s, are in the log more than once: %s at offsets %s, acknowledged at %d.",
		ids, len(ds), c.at(m.Intended), m.Status, c.at(m.Acked), first.ID, joinOffsets(first.Offsets), m.Offset)})
	faults := c.inEffect(m.Intended)
	for _, x := range c.run.Faults {
		if x.At.After(m.Intended) && !x.At.After(m.Acked) {
			faults = append(faults, x)
		}
	}
	f.Steps = append(f.Steps, faultSteps(c, faults)...)
	f.Steps = append(f.Steps, c.fencingSteps(c.fencing(m.Intended, m.Acked), -1)...)
	var leads []Event
	for _, e := range c.leaderChanges(partition) {
		if e.Line.At.After(m.Intended) && !e.Line.At.After(m.Acked) {
			leads = append(leads, e)
		}
	}
	for _, e := range leads {
		f.Steps = append(f.Steps, Statement{Text: fmt.Sprintf("While they were outstanding %s became leader of %s at leader epoch %d at %s, its log ending at offset %d.",
			node(e.Leader), partition, e.Epoch, c.at(e.Line.At), e.Offset), Lines: lines(e)})
	}
	switch {
	case len(leads) > 0:
		l := leads[len(leads)-1]
		f.Cause = fmt.Sprintf("written again after the leader change to %s at leader epoch %d", node(l.Leader), l.Epoch)
	case len(faults) > 0:
		f.Cause = "written again by the producer's retry"
	default:
		f.Steps = append(f.Steps, Statement{Text: fmt.Sprintf("No fault and no leader change of %s while they were outstanding are in the evidence.", partition)})
		return f
	}
	if len(first.Offsets) > 1 && first.Offsets[0] < m.Offset {
		f.Steps = append(f.Steps, Statement{Text: fmt.Sprintf("The copy at offset %d was never acknowledged: the producer's retry (not logged) wrote the batch again and had offset %d acknowledged.", first.Offsets[0], m.Offset)})
	}
	if fp := faultPhrase(faults); fp != "" {
		f.Cause += " across " + fp
	}
	f.Visible = true
	return f
}

func joinOffsets(offs []int64) string {
	s := make([]string, len(offs))
	for i, o := range offs {
		s[i] = itoa(o)
	}
	return strings.Join(s, ", ")
}

// refused explains the sends of a topic the leader refused with
// NOT_ENOUGH_REPLICAS, one finding per partition: the ISR shrink before
// them and the leader's append errors.
func (c *runCtx) refused(t results.Topic) []Finding {
	byPart := map[int32][]results.Message{}
	var parts []int32
	for _, m := range t.All() {
		if m.Status != results.StatusFailed || !strings.HasPrefix(m.Error, "NOT_ENOUGH_REPLICAS") {
			continue
		}
		if _, ok := byPart[m.Partition]; !ok {
			parts = append(parts, m.Partition)
		}
		byPart[m.Partition] = append(byPart[m.Partition], m)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	var out []Finding
	for _, p := range parts {
		out = append(out, c.refusedRange(t.Label, p, byPart[p]))
	}
	return out
}

func (c *runCtx) refusedRange(label string, p int32, ms []results.Message) Finding {
	partition := c.partitionName(label, p)
	first, last := ms[0], ms[len(ms)-1]
	end := last.Acked
	if end.IsZero() {
		end = c.run.End
	}
	f := Finding{Kind: FindingRefused, Topic: label, Partition: p, Count: len(ms), Cause: NotVisible, Range: first.ID}
	if len(ms) > 1 {
		f.Range = first.ID + ".." + last.ID
	}
	f.Steps = append(f.Steps, Statement{Text: fmt.Sprintf("%d sends to %s were refused with NOT_ENOUGH_REPLICAS between %s and %s.", len(ms), partition, c.at(first.Intended), c.at(end))})
	var shrink *Event
	for _, e := range c.of(partition, ISRShrink) {
		if e.Line.At.Before(first.Acked) || first.Acked.IsZero() && e.Line.At.Before(end) {
			e := e
			shrink = &e
		}
	}
	if shrink != nil {
		f.Steps = append(f.Steps, Statement{Text: fmt.Sprintf("%s, the leader, shrank the ISR of %s from %s to %s at %s.", node(shrink.Node), partition, brokers(shrink.From), brokers(shrink.ISR), c.at(shrink.Line.At)), Lines: lines(*shrink)})
		for _, e := range c.of(partition, ISRUpdated, UnderMinISR) {
			if !e.Line.At.Before(shrink.Line.At) && e.Line.At.Before(end) && len(e.ISR) == len(shrink.ISR) {
				under := ""
				if e.Kind == UnderMinISR {
					under = ", under min.insync.replicas (\"under-min-isr\")"
				}
				f.Steps = append(f.Steps, Statement{Text: fmt.Sprintf("The controller accepted it: %s logged the ISR updated to %s at %s%s.", e.Line.Node, brokers(e.ISR), c.at(e.Line.At), under), Lines: lines(e)})
				break
			}
		}
	}
	var errs []Event
	for _, e := range c.of(partition, AppendError) {
		if !e.Line.At.Before(first.Intended) && !e.Line.At.After(end) {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		show := []Event{errs[0]}
		if len(errs) > 1 {
			show = append(show, errs[len(errs)-1])
		}
		f.Steps = append(f.Steps, Statement{Text: fmt.Sprintf("%s logged %d append errors on %s meanwhile (the exception's name is on the next line of its log, which the evidence does not keep).", errs[0].Line.Node, len(errs), partition), Lines: lines(show...)})
	}
	if shrink != nil {
		f.Cause, f.Visible = fmt.Sprintf("the ISR shrink of partition %d to %s by %s", p, brokers(shrink.ISR), node(shrink.Node)), true
		if fp := faultPhrase(c.inEffect(first.Intended)); fp != "" {
			f.Cause += " after " + fp
		}
	}
	return f
}

// unapplied explains the records a consumer group committed past and never
// applied: the commit that passed them and the member's end.
func unapplied(c *runCtx, g results.Consumer) (Finding, bool) {
	if g.Tally == nil || len(g.Tally.Unapplied) == 0 {
		return Finding{}, false
	}
	ids := g.Tally.Unapplied
	f := Finding{Kind: FindingUnapplied, Topic: g.Topic, Count: len(ids), Cause: NotVisible, Range: idRange(ids)}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var rec *results.ConsumerEvent
	for _, e := range g.Events {
		if e.Kind == results.EventDeliver && want[e.ID] && (rec == nil || e.Offset < rec.Offset) {
			e := e
			rec = &e
		}
	}
	f.Steps = append(f.Steps, Statement{Text: fmt.Sprintf("Group %s never applied %s it committed past (%s).", g.Label, plural(len(ids), "record"), idRange(ids))})
	if rec == nil {
		return f, true
	}
	f.Partition = rec.Partition
	f.Steps = append(f.Steps, Statement{Text: fmt.Sprintf("The first of them, %s at offset %d, was delivered to member %d at %s.", rec.ID, rec.Offset, rec.Member, c.at(rec.At))})
	var commit *results.ConsumerEvent
	for _, e := range g.Events {
		if e.Kind == results.EventCommit && e.Partition == rec.Partition && e.Offset > rec.Offset {
			e := e
			commit = &e
			break
		}
	}
	if commit == nil {
		return f, true
	}
	f.Steps = append(f.Steps, Statement{Text: fmt.Sprintf("Member %d committed offset %d at %s (--commit %s), past it, before it was applied.", commit.Member, commit.Offset, c.at(commit.At), g.Commit)})
	f.Cause, f.Visible = fmt.Sprintf("member %d's commit of offset %d (--commit %s) before applying them", commit.Member, commit.Offset, g.Commit), true
	for _, m := range g.Members {
		if m.N == commit.Member && m.How != "" {
			f.Steps = append(f.Steps, Statement{Text: fmt.Sprintf("Member %d then %s at %s (%s).", m.N, m.How, c.at(m.End), m.Reason)})
			f.Cause += fmt.Sprintf(", then member %d %s", m.N, m.How)
			break
		}
	}
	return f, true
}

// plural is "1 record", "7 records".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
