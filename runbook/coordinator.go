package runbook

import "strings"

// Coordinator is a node target chosen by a coordinator's role:
// coordinator(txn:NAME) is the transaction coordinator of a transactional
// id, coordinator(group:G) the group coordinator of a consumer group. The
// engine asks the cluster (FindCoordinator) when the step runs.
//
// NAME is a transform group (its members' transactional id) or a topic
// (the transactional id of its first produce --transactional step); G is
// a group of a consume or transform step. Both as the runbook writes them:
// the engine adds the run's suffix.
type Coordinator struct {
	Kind string // CoordTxn or CoordGroup
	Name string
}

// Coordinator kinds, as written before the colon.
const (
	CoordTxn   = "txn"
	CoordGroup = "group"
)

// parseCoordinator parses coordinator(KIND:NAME); is says whether s is
// one at all, ok whether it is well formed (NAME may be empty: the
// checker says so).
func parseCoordinator(s string) (c *Coordinator, ok, is bool) {
	rest, is := strings.CutPrefix(s, "coordinator(")
	if !is {
		return nil, false, false
	}
	inner, closed := strings.CutSuffix(rest, ")")
	kind, name, colon := strings.Cut(inner, ":")
	if !closed || !colon || (kind != CoordTxn && kind != CoordGroup) {
		return nil, false, true
	}
	return &Coordinator{Kind: kind, Name: name}, true, true
}

// checkCoordinator checks coordinator(KIND:NAME): a group started above,
// or for txn a transform group or a topic used above.
func (c *checker) checkCoordinator(t Target, v value) {
	name := t.Coordinator.Name
	p := v.at(strings.IndexByte(v.text, ':') + 1)
	switch {
	case name == "":
		c.errorf(p, "%s names nothing: write coordinator(%s:NAME)", v.text, t.Coordinator.Kind)
	case t.Coordinator.Kind == CoordGroup:
		c.useGroup(name, p)
	default:
		if _, ok := c.groups[name]; !ok {
			c.useTopic(name, p)
		}
	}
}
