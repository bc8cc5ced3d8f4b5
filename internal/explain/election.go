package explain

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// Election kinds, as Kafka logged them or as the ISR before shows them.
const (
	ElectionClean     = "clean"             // the new leader was in the ISR before
	ElectionLastKnown = "last-known-leader" // KIP-966's fallback: isr=[] and the leader from lastKnownElr, logged as unclean
	ElectionELR       = "eligible-leader"   // isr=[] and the leader from elr
	ElectionUnclean   = "unclean"           // logged as unclean, from outside ISR and ELR
	ElectionReassign  = "reassignment"      // the controller completed a reassignment that took the old leader out of the replicas
	ElectionOutside   = "outside-isr"       // no controller line; the leader was not in the last ISR known
	ElectionUnknown   = "unknown"           // neither the controller's line nor the ISR before is in the evidence
)

// election is one leadership change of a partition and what preceded it.
type election struct {
	leader Event  // the new leader's BecomeLeader line
	ctrl   *Event // the controller's election line, when the evidence has it
	// reassign is the controller's line completing a reassignment with
	// this leadership change, when the evidence has it.
	reassign *Event
	kind     string
	before   isrState
}

// isrState is the last ISR the records show before a moment.
type isrState struct {
	known    bool
	isr      []int32
	proposed bool   // a leader's "Shrinking ISR" proposal, not a committed change
	what     string // where it comes from, for a statement
	lines    []results.LogLine
	// last is, for a proposal, the last committed state before it: what
	// the controller had unless a later line shows the proposal taken.
	last *isrState
}

// leaderChanges are the BecomeLeader lines of a partition, the first one of
// each leader epoch (a broker restarting logs its epoch again with
// "Previous leader None"), in time order.
func (c *runCtx) leaderChanges(partition string) []Event {
	seen := map[int32]bool{}
	var out []Event
	for _, e := range c.of(partition, BecomeLeader) {
		if !seen[e.Epoch] {
			seen[e.Epoch] = true
			out = append(out, e)
		}
	}
	return out
}

// electionOf completes a leader change with the controller's line, the ISR
// before it and the kind of election that made it.
func (c *runCtx) electionOf(label string, p int32, lead Event) election {
	el := election{leader: lead}
	partition := lead.Partition
	var ctrl *Event
	for _, e := range c.of(partition, Election) {
		at := e.Line.At
		if e.Leader == lead.Leader && !at.After(lead.Line.At.Add(2*time.Second)) && at.After(lead.Line.At.Add(-30*time.Second)) {
			e := e
			ctrl = &e
		}
	}
	el.ctrl = ctrl
	for _, e := range c.of(partition, ReassignDone) {
		if e.Epoch == lead.Epoch && contains(e.Replicas, lead.Leader) {
			e := e
			el.reassign = &e
		}
	}
	el.before = c.isrBefore(label, p, partition, lead.Line.At, lead.Leader)
	switch {
	case el.reassign != nil && (ctrl == nil || !ctrl.Unclean):
		el.kind = ElectionReassign
	case ctrl != nil && !ctrl.Unclean:
		el.kind = ElectionClean
	case ctrl != nil && len(ctrl.ISR) == 0 && contains(ctrl.ELR, lead.Leader):
		el.kind = ElectionELR
	case ctrl != nil && len(ctrl.ISR) == 0 && contains(ctrl.LastELR, lead.Leader):
		el.kind = ElectionLastKnown
	case ctrl != nil:
		el.kind = ElectionUnclean
	case el.before.known && contains(el.before.isr, lead.Leader):
		el.kind = ElectionClean
	case el.before.committed().known && contains(el.before.committed().isr, lead.Leader):
		// A leader's proposal to shrink the ISR is not the ISR: with
		// no line showing it committed, the election was from the ISR
		// the controller had.
		el.kind = ElectionClean
	case el.before.committed().known:
		el.kind = ElectionOutside
	default:
		el.kind = ElectionUnknown
	}
	return el
}

// committed is the state itself, or for a proposal the last committed
// state before it (unknown when the records show none).
func (s isrState) committed() isrState {
	switch {
	case !s.proposed:
		return s
	case s.last != nil:
		return *s.last
	}
	return isrState{}
}

// isrBefore is the last ISR of a partition the records show before t: a
// broker's ISR line or partition state, a new leader's ISR, or the
// sampler's metadata.
func (c *runCtx) isrBefore(label string, p int32, partition string, t time.Time, leader int32) isrState {
	var st isrState
	var last time.Time
	for _, e := range c.of(partition, PartitionState, ISRUpdated, UnderMinISR, ISRShrink, ISRExpand, BecomeLeader) {
		if !e.Line.At.Before(t) || e.ISR == nil || e.Line.At.Before(last) {
			continue
		}
		last = e.Line.At
		next := isrState{known: true, isr: e.ISR, proposed: e.Kind == ISRShrink || e.Kind == ISRExpand,
			what: fmt.Sprintf("%s's log at %s", e.Line.Node, c.at(e.Line.At)), lines: lines(e)}
		if next.proposed {
			prev := st.committed()
			next.last = &prev
		}
		st = next
	}
	for _, s := range c.run.ISR {
		// A sample naming the new leader may already show the election.
		if s.Topic != label || s.Partition != p || s.Leader == leader || !s.At.Before(t) || !s.At.After(last) {
			continue
		}
		last = s.At
		who := "none"
		if s.Leader >= 0 {
			who = node(s.Leader)
		}
		st = isrState{known: true, isr: s.ISR, what: fmt.Sprintf("the metadata sampled from %s on, leader %s", c.at(s.At), who)}
	}
	return st
}

// statements says what the election was, with its lines.
func (c *runCtx) electionSteps(el election, lo int64) []Statement {
	var out []Statement
	if el.before.known {
		verb := "was"
		if el.before.proposed {
			verb = "was proposed as"
		}
		out = append(out, Statement{Text: fmt.Sprintf("Before the election the ISR of %s %s %s (%s).", el.leader.Partition, verb, brokers(el.before.isr), el.before.what), Lines: el.before.lines})
		if was := el.before.committed(); el.before.proposed && was.known && el.ctrl == nil && !contains(el.before.isr, el.leader.Leader) {
			out = append(out, Statement{Text: fmt.Sprintf("No line shows that proposal committed; the ISR last committed was %s (%s).", brokers(was.isr), was.what), Lines: was.lines})
		}
	}
	if r := el.reassign; r != nil {
		var gone []int32
		for _, id := range r.FromReplicas {
			if !contains(r.Replicas, id) {
				gone = append(gone, id)
			}
		}
		out = append(out, Statement{Text: fmt.Sprintf("The controller (%s) completed the reassignment of %s at %s on %s's AlterPartition request, which brought the last new replica into the ISR: "+
			"in one change the replicas went from %s to %s and the ISR from %s to %s, %s out of both, and the leadership moved to %s at leader epoch %d. "+
			"A new replica joins the ISR once its log reaches the leader's high watermark (Kafka's Partition.isFollowerInSync), not what the leader acknowledged past it.",
			r.Line.Node, el.leader.Partition, c.at(r.Line.At), node(r.Node), brokers(r.FromReplicas), brokers(r.Replicas), brokers(r.From), brokers(r.ISR), nodeNames(gone), node(el.leader.Leader), r.Epoch), Lines: lines(*r)})
	} else if el.ctrl != nil {
		x := el.ctrl
		how := "a clean"
		if x.Unclean {
			how = "an unclean"
		}
		txt := fmt.Sprintf("The controller (%s) set the leader of %s to %d at %s using %s election, from the partition state isr=%s, elr=%s, lastKnownElr=%s.",
			x.Line.Node, el.leader.Partition, x.Leader, c.at(x.Line.At), how, brokers(x.ISR), brokers(x.ELR), brokers(x.LastELR))
		switch el.kind {
		case ElectionLastKnown:
			txt += fmt.Sprintf(" The ISR was empty and %s came from lastKnownElr: KIP-966's last-known-leader fallback, which Kafka logs as unclean.", node(x.Leader))
		case ElectionELR:
			txt += fmt.Sprintf(" The ISR was empty and %s came from the eligible leader replicas (elr).", node(x.Leader))
		}
		out = append(out, Statement{Text: txt, Lines: lines(*x)})
	} else {
		var txt string
		switch el.kind {
		case ElectionClean:
			txt = fmt.Sprintf("%s was in that ISR: a clean election", node(el.leader.Leader))
		case ElectionOutside:
			txt = fmt.Sprintf("%s was not in that ISR; no controller line says how it was elected", node(el.leader.Leader))
		default:
			txt = "No ISR before the election and no controller line about it are in the evidence: its kind is not visible"
		}
		if ns := c.searchedAfter(el.leader.Line.At); len(ns) > 0 && el.kind != ElectionUnknown {
			txt += fmt.Sprintf(" (the logs of %s, searched for unclean elections after it, hold none for this partition)", strings.Join(ns, ", "))
		}
		out = append(out, Statement{Text: txt + "."})
	}
	l := el.leader
	txt := fmt.Sprintf("%s became leader of %s at leader epoch %d at %s with ISR %s, its log ending at offset %d", node(l.Leader), l.Partition, l.Epoch, c.at(l.Line.At), brokers(l.ISR), l.Offset)
	if lo >= 0 && l.Offset <= lo {
		txt += fmt.Sprintf(", at or before offset %d where the first of them had been acknowledged", lo)
	}
	out = append(out, Statement{Text: txt + ".", Lines: lines(l)})
	return out
}

// electionPhrase names an election in a cause: "clean election of k2".
func electionPhrase(el election) string {
	n := node(el.leader.Leader)
	switch el.kind {
	case ElectionLastKnown:
		return "last-known-leader election of " + n + " (logged as unclean)"
	case ElectionELR:
		return "eligible-leader-replica election of " + n
	case ElectionUnclean:
		return "unclean election of " + n
	case ElectionClean:
		return "clean election of " + n
	case ElectionOutside:
		return "election of " + n + " from outside the last known ISR"
	case ElectionReassign:
		return "election of " + n + " on the completion of a reassignment"
	}
	return "election of " + n + " (kind not visible)"
}

// searchedAfter are the nodes whose logs a `logs` step searched for
// unclean elections after t, sorted.
func (c *runCtx) searchedAfter(t time.Time) []string {
	var out []string
	for n, at := range c.searched {
		if at.After(t) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// LeaderElection is one leader election of a topic's partition that a
// run's evidence shows, with its kind.
type LeaderElection struct {
	Partition string // as the brokers name it: "plast-r1-8d82-0"
	Leader    string // k2
	Epoch     int32
	Kind      string // one of the Election kinds above
}

// Elections lists the leader elections of the topic labelled label in a
// run, partition by partition in time order: each new leader epoch a
// broker took after the first (epoch 0 is the topic's creation, not an
// election), with the kind electionOf gives it. A bisect on elections
// judges a release by them.
func Elections(run results.Run, label string) []LeaderElection {
	c := newRunCtx(run)
	prefix := strings.TrimSuffix(c.partitionName(label, 0), "0")
	var parts []string
	for _, e := range c.evs {
		if e.Kind == BecomeLeader && strings.HasPrefix(e.Partition, prefix) && !slices.Contains(parts, e.Partition) {
			parts = append(parts, e.Partition)
		}
	}
	slices.Sort(parts)
	var out []LeaderElection
	for _, part := range parts {
		p, err := strconv.ParseInt(strings.TrimPrefix(part, prefix), 10, 32)
		if err != nil {
			continue // another topic whose name starts with this one's
		}
		for _, lead := range c.leaderChanges(part) {
			if lead.Epoch == 0 {
				continue
			}
			el := c.electionOf(label, int32(p), lead)
			out = append(out, LeaderElection{Partition: part, Leader: node(lead.Leader), Epoch: lead.Epoch, Kind: el.kind})
		}
	}
	return out
}

// HowElected sums up how a topic's leaders were elected in some runs:
// the kinds of its elections other than clean ones, sorted and joined
// ("last-known-leader"), or "clean" when every election was a clean one,
// and "none" when the topic had none. Clean elections are left out of a
// mix because a healthy cluster adds them at will (a preferred leader
// moving back): what this tells apart is whether, and how, Kafka reached
// outside the ISR. kafkabook bisect --elections judges a release by it,
// and prosecheck's elections(T) claims check the prose against it.
func HowElected(runs []results.Run, label string) string {
	seen := map[string]bool{}
	for _, r := range runs {
		for _, e := range Elections(r, label) {
			seen[e.Kind] = true
		}
	}
	if len(seen) == 0 {
		return "none"
	}
	var kinds []string
	for k := range seen {
		if k != ElectionClean {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return ElectionClean
	}
	slices.Sort(kinds)
	return strings.Join(kinds, ", ")
}

// nodeNames are ids as node names: "k1", "k1 and k2".
func nodeNames(ids []int32) string {
	var s []string
	for _, id := range ids {
		s = append(s, node(id))
	}
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
