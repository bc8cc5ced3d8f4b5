package explain

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// lost explains the lost messages of one final tally, one finding per
// range of consecutive offsets of a partition.
func (c *runCtx) lost(t results.Tally) []Finding {
	ls := append([]results.Loss(nil), t.Lost...)
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].Partition != ls[j].Partition {
			return ls[i].Partition < ls[j].Partition
		}
		return ls[i].Offset < ls[j].Offset
	})
	msgs := c.ledger(t.Label, t.LostIDs())
	var out []Finding
	for from := 0; from < len(ls); {
		to := from + 1
		for to < len(ls) && ls[to].Partition == ls[from].Partition && (ls[to].Offset < 0 || ls[to].Offset == ls[to-1].Offset+1) {
			to++
		}
		out = append(out, c.lostRange(t.Label, ls[from].Partition, ls[from:to], msgs))
		from = to
	}
	return out
}

// ledger returns the ledger entries of a topic with the given ids.
func (c *runCtx) ledger(label string, ids []string) map[string]results.Message {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := map[string]results.Message{}
	for _, t := range c.run.Topics {
		if t.Label != label {
			continue
		}
		for _, m := range t.All() {
			if want[m.ID] {
				out[m.ID] = m
			}
		}
	}
	return out
}

// span is what a set of ledger entries covers: ids, offsets, leader epochs
// and times.
type span struct {
	first, last string
	lo, hi      int64 // offsets; -1 when unknown
	epoch       int32 // lowest leader epoch the client knew when they were acknowledged; -1 when unknown
	sent, acked time.Time
	count       int
}

func spanOf(losses []results.Loss, msgs map[string]results.Message) span {
	s := span{lo: -1, hi: -1, epoch: -1, count: len(losses)}
	for i, l := range losses {
		if i == 0 {
			s.first = l.ID
		}
		s.last = l.ID
		if l.Offset >= 0 && (s.lo < 0 || l.Offset < s.lo) {
			s.lo = l.Offset
		}
		s.hi = max(s.hi, l.Offset)
		m, ok := msgs[l.ID]
		if !ok {
			continue
		}
		if m.LeaderEpoch >= 0 && (s.epoch < 0 || m.LeaderEpoch < s.epoch) {
			s.epoch = m.LeaderEpoch
		}
		if s.sent.IsZero() || m.Intended.Before(s.sent) {
			s.sent = m.Intended
		}
		if m.Acked.After(s.acked) {
			s.acked = m.Acked
		}
	}
	return s
}

func (s span) String() string {
	r := s.first
	if s.last != s.first {
		r += ".." + s.last
	}
	switch {
	case s.lo < 0:
	case s.lo == s.hi:
		r += fmt.Sprintf(" (offset %d)", s.lo)
	default:
		r += fmt.Sprintf(" (offsets %d..%d)", s.lo, s.hi)
	}
	return r
}

// lostRange explains a range of lost messages of one partition: the
// leader change after they were acknowledged (the faults and fencing
// before it, the ISR it was made from, its kind) and the truncations that
// removed them.
func (c *runCtx) lostRange(label string, p int32, losses []results.Loss, msgs map[string]results.Message) Finding {
	st := lossStory{s: spanOf(losses, msgs), partition: c.partitionName(label, p), end: c.run.End}
	st.el, st.haveEl = c.electionAfter(label, p, st.partition, st.s)
	st.trunc = c.truncationsOf(st.partition, st.s, losses)
	if !st.haveEl && len(st.trunc) == 0 {
		st.deleted = c.deletionOf(st.partition, st.s)
	}
	switch {
	case st.haveEl:
		st.end = st.el.leader.Line.At
	case len(st.trunc) > 0:
		st.end = st.trunc[0].at
	}
	st.faults = append(c.inEffect(st.s.sent), c.faultsIn(st.s.sent, st.end)...)
	f := Finding{Kind: FindingLost, Topic: label, Partition: p, Range: st.s.String(), Count: st.s.count, Steps: c.lostSteps(st)}
	f.Cause, f.Short, f.Visible = st.cause()
	return f
}

// lossStory is what the records show about one lost range.
type lossStory struct {
	s         span
	partition string
	el        election
	haveEl    bool
	trunc     []truncation
	deleted   *deletion // retention deleted the range: no election, no truncation
	faults    []results.Fault
	end       time.Time // the election, else the first truncation, else the run's end
}

// lostSteps are the statements of a lost range, in the order things
// happened.
func (c *runCtx) lostSteps(st lossStory) []Statement {
	s := st.s
	acked := "their acknowledgement times are not in the ledger"
	if !s.acked.IsZero() {
		acked = fmt.Sprintf("the first was sent at %s, the last acknowledged at %s; the client knew leader epoch %d or later for them", c.at(s.sent), c.at(s.acked), s.epoch)
	}
	out := []Statement{{Text: fmt.Sprintf("%d acknowledged messages of %s, %s, are gone; %s.", s.count, st.partition, s.String(), acked)}}
	out = append(out, faultSteps(c, st.faults)...)
	// A shutdown granted since the first fault in effect: a clean stop
	// may have begun just before the range was sent.
	from := s.sent
	for _, f := range st.faults {
		if f.At.Before(from) {
			from = f.At
		}
	}
	out = append(out, c.shutdownSteps(from, st.end)...)
	fence := c.fencing(s.sent, st.end)
	out = append(out, c.controllerSteps(fence, s.sent)...)
	if !st.haveEl {
		out = append(out, c.fencingSteps(fence, -1)...)
		out = append(out, Statement{Text: fmt.Sprintf("No new leader of %s after leader epoch %d and after %s is in the evidence.", st.partition, s.epoch, c.at(s.sent))})
	} else {
		lead := st.el.leader.Leader
		out = append(out, c.fencingSteps(fence, lead)...)
		if u := c.unfenced(lead, s.sent, st.end); u != nil {
			out = append(out, Statement{Text: fmt.Sprintf("%s was unfenced at %s, before it became leader.", node(lead), c.at(u.Line.At)), Lines: lines(*u)})
		}
		out = append(out, c.electionSteps(st.el, s.lo)...)
	}
	for _, t := range st.trunc {
		out = append(out, t.statement(c))
	}
	if d := st.deleted; d != nil {
		out = append(out, d.statement(c))
	}
	return out
}

// cause says a lost range's cause in a sentence and in a few words. The
// records show one when a replica truncated the range away or when the
// new leader's log ended before it.
func (st lossStory) cause() (cause, short string, visible bool) {
	if d := st.deleted; d != nil {
		short = fmt.Sprintf("%s deleted by %s on %s", d.moved.Partition, d.why(), d.moved.Line.Node)
		return short, short, true
	}
	logEnded := st.haveEl && st.s.lo >= 0 && st.el.leader.Offset <= st.s.lo
	if len(st.trunc) == 0 && !logEnded {
		return NotVisible, NotVisible, false
	}
	after := ""
	if fp := faultPhrase(st.faults); fp != "" {
		after = " after " + fp
	}
	if !st.haveEl {
		short = truncPhrase(st.trunc) + after
		return short + " (no election in the evidence)", short, true
	}
	short = electionPhrase(st.el) + after
	cause = electionPhrase(st.el)
	if logEnded {
		cause += fmt.Sprintf(" with its log ending at offset %d", st.el.leader.Offset)
	}
	cause += after
	if len(st.trunc) > 0 {
		cause += "; " + truncPhrase(st.trunc)
	}
	return cause, short, true
}

// electionAfter is the leader change that lost a span: the first new
// leader after its first send, at a later epoch than the client knew for
// it, whose log ended at or before its first offset; else the first new
// leader after the first send. A zombie leader acknowledges after its
// successor was elected, so the first send, not the last answer, bounds
// the search; the client's epoch keeps out a restarted leader logging its
// old epoch again.
func (c *runCtx) electionAfter(label string, p int32, partition string, s span) (election, bool) {
	var first *Event
	for _, e := range c.leaderChanges(partition) {
		if e.Epoch <= s.epoch || !e.Line.At.After(s.sent) {
			continue
		}
		if first == nil {
			e := e
			first = &e
		}
		if s.lo >= 0 && e.Offset <= s.lo {
			return c.electionOf(label, p, e), true
		}
	}
	if first == nil {
		return election{}, false
	}
	return c.electionOf(label, p, *first), true
}

// faultsIn are the fault injections that take a node down or away in
// [from, to].
func (c *runCtx) faultsIn(from, to time.Time) []results.Fault {
	var out []results.Fault
	for _, f := range c.run.Faults {
		if k, _ := runbook.FaultKindOf(f.Op); k.Off != "" {
			if _, end := k.Read(f.Nodes); end {
				continue // disk k1 healthy ends a fault, it injects none
			}
		}
		if away(f.Op) && !f.At.Before(from) && !f.At.After(to) {
			out = append(out, f)
		}
	}
	return out
}

// away says op takes nodes down or away from the others (runbook.FaultKinds).
func away(op string) bool {
	k, ok := runbook.FaultKindOf(op)
	return ok && k.Away
}

// ends says op ends the window fault opened.
func ends(fault, op string) bool {
	k, _ := runbook.FaultKindOf(fault)
	return slices.Contains(k.EndedBy, op)
}

// inEffect are the faults injected before t that still held at t: a node
// killed and not started again, isolated and not rejoined, paused and not
// resumed, a network partition not healed. Each is returned with the
// nodes it still held.
func (c *runCtx) inEffect(t time.Time) []results.Fault {
	var held []results.Fault
	for _, f := range c.run.Faults {
		if !f.At.Before(t) {
			break
		}
		// A fault with an argument (disk k1 failed) ends its own window
		// with its Off argument (disk k1 healthy); its argument stays
		// last in a held fault's nodes, for faultPhrase.
		if k, _ := runbook.FaultKindOf(f.Op); k.Off != "" {
			nodes, end := k.Read(f.Nodes)
			for i := range held { // a later event on the same nodes replaces or ends it
				if held[i].Op == f.Op {
					hn, _ := k.Read(held[i].Nodes)
					held[i].Nodes = append(without(hn, nodes), held[i].Nodes[len(held[i].Nodes)-1])
				}
			}
			if !end && k.Away {
				held = append(held, f)
			}
			continue
		}
		if away(f.Op) {
			held = append(held, f)
			continue
		}
		for i := range held {
			switch {
			case !ends(held[i].Op, f.Op):
			case f.Op == "heal":
				held[i].Nodes = nil
			default:
				held[i].Nodes = without(held[i].Nodes, f.Nodes)
			}
		}
	}
	var out []results.Fault
	for _, f := range held {
		nodes := f.Nodes
		if k, _ := runbook.FaultKindOf(f.Op); k.Off != "" {
			nodes, _ = k.Read(f.Nodes)
		}
		if len(without(nodes, []string{"|"})) > 0 {
			out = append(out, f)
		}
	}
	return out
}

func without(nodes, gone []string) []string {
	var out []string
	for _, n := range nodes {
		if !containsString(gone, n) {
			out = append(out, n)
		}
	}
	return out
}

// faultPhrase says faults in words: "isolation of k2, k3 and kill of k1".
func faultPhrase(fs []results.Fault) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = runbook.FaultWords(f)
	}
	return strings.Join(parts, " and ")
}

func faultSteps(c *runCtx, fs []results.Fault) []Statement {
	var out []Statement
	for _, f := range fs {
		out = append(out, Statement{Text: fmt.Sprintf("kafkabook's fault record: %s %s at %s (step %s).", f.Op, strings.Join(f.Nodes, " "), c.at(f.At), f.Pos)})
	}
	return out
}

// shutdownSteps say which brokers the controller let shut down in a
// controlled way in [from, to]: a clean stop (stop, restart, roll) hands
// the broker's leaderships to other replicas before it stops, and the
// controller's grant is the line that shows it.
func (c *runCtx) shutdownSteps(from, to time.Time) []Statement {
	var out []Statement
	for _, e := range c.ofKind(from, to, ControlledShutdown) {
		out = append(out, Statement{
			Text:  fmt.Sprintf("The controller (%s) granted %s a controlled shutdown at %s: its leaderships moved to other replicas before it stopped.", e.Line.Node, node(e.Node), c.at(e.Line.At)),
			Lines: lines(e),
		})
	}
	return out
}

// fencing are the controllers' "Fencing broker" lines in [from, to].
func (c *runCtx) fencing(from, to time.Time) []Event {
	return c.ofKind(from, to, Fenced)
}

// fencingSteps says who was fenced, in which order, and whether the new
// leader (-1: none) was the last of them.
func (c *runCtx) fencingSteps(fence []Event, leader int32) []Statement {
	if len(fence) == 0 {
		return nil
	}
	var who []string
	reasons := map[string]bool{}
	for _, e := range fence {
		who = append(who, fmt.Sprintf("broker %d (broker epoch %d, at %s, by %s)", e.Node, e.Epoch, c.at(e.Line.At), e.Line.Node))
		reasons[e.Reason] = true
	}
	txt := "The controller fenced " + strings.Join(who, ", then ")
	if len(reasons) == 1 && fence[0].Reason != "" {
		if len(fence) > 1 {
			txt += ", each"
		}
		txt += " because " + fence[0].Reason
	}
	txt += "."
	if last := fence[len(fence)-1].Node; len(fence) > 1 && last == leader {
		txt += fmt.Sprintf(" %s, the new leader, was fenced last.", node(leader))
	}
	return []Statement{{Text: txt, Lines: lines(fence...)}}
}

// controllerSteps says since when the controller that fenced brokers had
// been active, when it became so after from: the restarted controller of
// a cluster that lost its quorum.
func (c *runCtx) controllerSteps(fence []Event, from time.Time) []Statement {
	if len(fence) == 0 {
		return nil
	}
	var active *Event
	for _, e := range c.ofKind(from, fence[0].Line.At, ControllerActive) {
		if e.Line.Node == fence[0].Line.Node {
			e := e
			active = &e
		}
	}
	if active == nil {
		return nil
	}
	return []Statement{{Text: fmt.Sprintf("%s became the active controller at %s (controller epoch %d).", active.Line.Node, c.at(active.Line.At), active.Epoch), Lines: lines(*active)}}
}

// unfenced is a broker's last "has been unfenced" line in [from, to].
func (c *runCtx) unfenced(id int32, from, to time.Time) *Event {
	var out *Event
	for _, e := range c.ofKind(from, to, Unfenced) {
		if e.Node == id {
			e := e
			out = &e
		}
	}
	return out
}

// deletion is a replica's log start offset moved past a lost range:
// records deleted, by retention or a deletion of records, not truncated.
type deletion struct {
	moved   Event  // "Incremented log start offset to N due to …"
	segment *Event // the segment deletion that moved it, with its reason
}

// deletionOf is the first move of a partition's log start offset after
// the span was sent that took the span's last offset with it; or, where
// the broker logged only the segment's deletion (4.3.1 at INFO), the
// first deletion of a segment that began at or before the span.
func (c *runCtx) deletionOf(partition string, s span) *deletion {
	if s.hi < 0 {
		return nil
	}
	moved := c.of(partition, Deleted)
	if len(moved) == 0 {
		for _, seg := range c.of(partition, DeletingSegment) {
			if !seg.Line.At.Before(s.sent) && seg.Offset <= s.lo {
				seg := seg
				return &deletion{moved: seg, segment: &seg}
			}
		}
		return nil
	}
	for _, e := range moved {
		if e.Line.At.Before(s.sent) || e.Offset <= s.hi {
			continue
		}
		d := &deletion{moved: e}
		for _, seg := range c.of(partition, DeletingSegment) {
			if seg.Line.Node == e.Line.Node && !seg.Line.At.After(e.Line.At) && e.Line.At.Sub(seg.Line.At) <= 2*time.Second {
				seg := seg
				d.segment = &seg
			}
		}
		return d
	}
	return nil
}

// why is what deleted the records: the segment's reason, or the log's.
func (d deletion) why() string {
	if d.segment != nil {
		return d.segment.Reason
	}
	return d.moved.Reason
}

func (d deletion) statement(c *runCtx) Statement {
	if d.segment != nil && d.segment.Kind == DeletingSegment && d.moved.Kind == DeletingSegment {
		return Statement{Text: fmt.Sprintf("%s deleted the segment of %s from offset %d, stamped %s by its own clock (%s).", d.segment.Line.Node, d.segment.Partition, d.segment.Offset, c.at(d.segment.Line.At), d.why()), Lines: []results.LogLine{d.segment.Line}}
	}
	ls := []results.LogLine{}
	if d.segment != nil {
		ls = append(ls, d.segment.Line)
	}
	ls = append(ls, d.moved.Line)
	return Statement{Text: fmt.Sprintf("%s moved the log start offset of %s to %d at %s, deleting what lay below it (%s).", d.moved.Line.Node, d.moved.Partition, d.moved.Offset, c.at(d.moved.Line.At), d.why()), Lines: ls}
}

// truncation is one replica cutting its log back to an offset at or before
// the end of a lost span.
type truncation struct {
	node    string
	at      time.Time
	offset  int64
	fetch   *Event // the fetcher's line that decided it
	log     Event  // the log's "Truncating to offset N"
	removed []string
}

// truncationsOf are the truncations of a partition after a span was
// acknowledged that removed records at or below its last offset, each
// with the lost messages acknowledged at or above its offset.
func (c *runCtx) truncationsOf(partition string, s span, losses []results.Loss) []truncation {
	if s.hi < 0 {
		return nil
	}
	fetches := c.of(partition, TruncateFetch)
	var out []truncation
	for _, e := range c.of(partition, Truncated) {
		if e.Line.At.Before(s.sent) || e.Offset > s.hi {
			continue
		}
		t := truncation{node: e.Line.Node, at: e.Line.At, offset: e.Offset, log: e}
		for _, fe := range fetches {
			if fe.Line.Node == e.Line.Node && !fe.Line.At.After(e.Line.At) && e.Line.At.Sub(fe.Line.At) <= 2*time.Second {
				fe := fe
				t.fetch = &fe
			}
		}
		for _, l := range losses {
			if l.Offset >= e.Offset {
				t.removed = append(t.removed, l.ID)
			}
		}
		out = append(out, t)
	}
	return out
}

func (t truncation) statement(c *runCtx) Statement {
	txt := fmt.Sprintf("%s truncated %s to offset %d at %s", t.node, t.log.Partition, t.offset, c.at(t.at))
	ls := []results.LogLine{}
	if t.fetch != nil {
		txt += fmt.Sprintf(", following leader %s (due to %s)", node(t.fetch.Leader), t.fetch.Reason)
		ls = append(ls, t.fetch.Line)
	} else if t.log.Reason != "" {
		txt += " (" + t.log.Reason + ")"
	}
	ls = append(ls, t.log.Line)
	txt += fmt.Sprintf(", removing what it held from there on, where %d of the lost messages had been acknowledged (%s).", len(t.removed), idRange(t.removed))
	return Statement{Text: txt, Lines: ls}
}

// truncPhrase says the truncations in a cause: "k2, k3 truncated to
// offset 0".
func truncPhrase(ts []truncation) string {
	byOff := map[int64][]string{}
	var offs []int64
	for _, t := range ts {
		if _, ok := byOff[t.offset]; !ok {
			offs = append(offs, t.offset)
		}
		if !containsString(byOff[t.offset], t.node) {
			byOff[t.offset] = append(byOff[t.offset], t.node)
		}
	}
	var parts []string
	for _, o := range offs {
		ns := byOff[o]
		sort.Strings(ns)
		parts = append(parts, fmt.Sprintf("%s truncated to offset %d", strings.Join(ns, ", "), o))
	}
	return strings.Join(parts, ", ")
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// idRange is "m-011..m-020" for a sorted id list.
func idRange(ids []string) string {
	switch len(ids) {
	case 0:
		return "none"
	case 1:
		return ids[0]
	}
	return ids[0] + ".." + ids[len(ids)-1]
}
