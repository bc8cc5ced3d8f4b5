package runbook

import (
	"strconv"
	"strings"
)

// Target is a node, or the current leader or followers of a topic's
// partition 0, as written in a step. Exactly one field is set; the zero
// Target names no node (a --via that was not given).
type Target struct {
	Node      string // "k1".."kN"
	Leader    string // topic of leader(TOPIC)
	Followers string // topic of followers(TOPIC)
	// Coordinator is the key of coordinator(txn:NAME) or
	// coordinator(group:G): the transaction coordinator of a transactional
	// id, or the group coordinator of a group (see coordinator.go).
	Coordinator *Coordinator
	// Controller is controller(): the active controller of the KRaft
	// quorum, the leader of its metadata log when the step runs.
	Controller bool
}

// NodeName is the name a runbook gives the node with broker id id: k1,
// k2, ... Every backend names its nodes so, and the steps' targets,
// the evidence and the report use the same words.
func NodeName[I ~int | ~int32](id I) string { return "k" + strconv.Itoa(int(id)) }

// ID returns the broker id of a plain node target (k2 → 2), or 0.
func (t Target) ID() int {
	if t.Node == "" {
		return 0
	}
	n, _ := strconv.Atoi(t.Node[1:])
	return n
}

func (t Target) String() string {
	switch {
	case t.Leader != "":
		return "leader(" + t.Leader + ")"
	case t.Followers != "":
		return "followers(" + t.Followers + ")"
	case t.Coordinator != nil:
		return "coordinator(" + t.Coordinator.Kind + ":" + t.Coordinator.Name + ")"
	case t.Controller:
		return "controller()"
	}
	return t.Node
}

// Target parses a node argument: k1..kN, leader(TOPIC), followers(TOPIC),
// coordinator(...) or controller().
// Arguments of node kinds were validated by Load; anything else gives a
// zero Target.
func (a Arg) Target() Target {
	t, _ := parseTarget(a.Text)
	return t
}

// parseTarget parses k1..kN, leader(TOPIC) or followers(TOPIC) without
// checking that the node exists; the topic may be empty (leader()), which
// the checker refuses.
func parseTarget(s string) (Target, bool) {
	if c, ok, is := parseCoordinator(s); is {
		return Target{Coordinator: c}, ok
	}
	if s == "controller()" {
		return Target{Controller: true}, true
	}
	for _, fn := range []string{"leader", "followers"} {
		if rest, ok := strings.CutPrefix(s, fn+"("); ok {
			topic, ok := strings.CutSuffix(rest, ")")
			if !ok {
				return Target{}, false
			}
			if fn == "leader" {
				return Target{Leader: topic}, true
			}
			return Target{Followers: topic}, true
		}
	}
	if len(s) >= 2 && s[0] == 'k' && s[1] != '0' {
		if _, err := strconv.Atoi(s[1:]); err == nil && s[1] != '+' && s[1] != '-' {
			return Target{Node: s}, true
		}
	}
	return Target{}, false
}

// targets is every argument of a step as a node target.
func (st *Step) targets() []Target {
	var out []Target
	for _, a := range st.Args {
		out = append(out, a.Target())
	}
	return out
}
