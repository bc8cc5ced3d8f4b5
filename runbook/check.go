package runbook

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// maxTopicLen leaves room under Kafka's 249 characters for the per-run
// suffix the engine adds to topic names.
const maxTopicLen = 200

// topicError says what is wrong with a topic name, or "".
func topicError(name string) string {
	switch {
	case name == "":
		return "empty topic name"
	case name == "." || name == "..":
		return fmt.Sprintf("topic name %q is not allowed", name)
	case len(name) > maxTopicLen:
		return fmt.Sprintf("topic name is %d characters long; at most %d are allowed", len(name), maxTopicLen)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Sprintf("bad topic name %q: use letters, digits, '.', '_' and '-'", name)
		}
	}
	return ""
}

// parseReplicas parses a replica assignment such as 1:2:3 or 1:2,2:3. With
// nodes > 0 it also checks that every broker id exists.
func parseReplicas(s string, nodes int) ([][]int32, string) {
	var out [][]int32
	for pi, part := range strings.Split(s, ",") {
		var ids []int32
		seen := map[int]bool{}
		for _, f := range strings.Split(part, ":") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				return nil, fmt.Sprintf("bad replica list %q: want broker ids like 1:2:3 (partitions separated by commas)", s)
			}
			if nodes > 0 && n > nodes {
				return nil, fmt.Sprintf("replica %d does not exist: the runbook has %s", n, nodesPhrase(nodes))
			}
			if seen[n] {
				return nil, fmt.Sprintf("replica %d appears twice in %q", n, part)
			}
			seen[n] = true
			ids = append(ids, int32(n))
		}
		if pi > 0 && len(ids) != len(out[0]) {
			return nil, fmt.Sprintf("bad replica list %q: every partition needs the same number of replicas", s)
		}
		out = append(out, ids)
	}
	return out, ""
}

func nodesPhrase(n int) string {
	if n == 1 {
		return "1 node (k1)"
	}
	return fmt.Sprintf("%d nodes (k1..k%d)", n, n)
}

// checkValue checks one argument or flag value of the given kind; what
// names it in messages ("--count", "TOPIC").
func (c *checker) checkValue(kind Kind, v value, what string) {
	if v.bad {
		return
	}
	p := v.at(0)
	bad := func(want string) {
		c.errorf(p, "bad %s %q: want %s", what, v.text, want)
	}
	switch kind {
	case KindTopic:
		if msg := topicError(v.text); msg != "" {
			c.errorf(p, "%s", msg)
		}
	case KindSide:
		if v.text == "|" {
			return
		}
		t, ok := parseTarget(v.text)
		switch {
		case !ok || t.Node == "":
			bad(fmt.Sprintf("nodes k1..k%d, with | between the two sides", c.nodeCount()))
		case t.ID() > c.nodeCount():
			c.errorf(p, "node %s does not exist: the runbook has %s", t.Node, nodesPhrase(c.nodeCount()))
		}
	case KindPercent:
		n, err := strconv.Atoi(strings.TrimSuffix(v.text, "%"))
		if !strings.HasSuffix(v.text, "%") || err != nil || n < 0 || n > 100 {
			bad("a share of packets from 0% to 100%")
		}
	case KindTarget, KindNode, KindNodes:
		c.checkTarget(kind, v, bad)
	case KindClock:
		if !jumpArg(v.text) {
			c.checkTarget(KindTarget, v, bad)
		} else if _, msg := parseJump(v.text); msg != "" {
			c.errorf(p, "bad jump %q: %s", v.text, msg)
		}
	case KindInt:
		if n, err := strconv.Atoi(v.text); err != nil || n < 0 {
			bad("a whole number")
		}
	case KindDuration:
		c.checkDuration(v, what, bad)
	case KindAcks:
		if _, err := results.ParseAcks(v.text); err != nil {
			bad("0, 1 or all")
		}
	case KindRegex:
		if _, err := regexp.Compile(v.text); err != nil {
			msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
			c.errorf(p, "bad %s: %s", what, msg)
		}
	case KindReplicas:
		if _, msg := parseReplicas(v.text, c.nodeCount()); msg != "" {
			c.errorf(p, "%s", msg)
		}
	case KindKeyValue:
		if k, _, ok := strings.Cut(v.text, "="); !ok || k == "" {
			bad("KEY=VALUE")
		}
	case KindProperty:
		if k, _, ok := strings.Cut(v.text, "="); !ok || k == "" {
			bad("NAME=VALUE, like linger.ms=5")
		}
	case KindClient:
		if _, _, err := ParseClient(v.text); err != nil {
			c.errorf(p, "%s: %v", what, err)
		}
	case KindBool:
		if _, err := strconv.ParseBool(v.text); err != nil {
			bad("true or false")
		}
	case KindRate:
		if _, msg := parseRate(v.text); msg != "" {
			c.errorf(p, "bad %s %q: %s", what, v.text, msg)
		}
	case KindGroup:
		if msg := topicError(v.text); msg != "" {
			c.errorf(p, "%s", strings.Replace(msg, "topic", "group", 1))
		}
	case KindRelease:
		if msg := releaseError(v.text); msg != "" {
			c.errorf(p, "%s: %s", what, msg)
		}
	case KindRetries:
		if n, err := strconv.Atoi(v.text); v.text != "max" && (err != nil || n < 0) {
			bad("a whole number, or max")
		}
	}
}

// checkTarget checks a node argument of the given kind: k1..kN, or
// leader(TOPIC) or followers(TOPIC) of a topic created above.
func (c *checker) checkTarget(kind Kind, v value, bad func(want string)) {
	t, ok := parseTarget(v.text)
	switch {
	case kind == KindNodes && (!ok || t.Node == ""):
		bad(fmt.Sprintf("nodes k1..k%d separated by commas", c.nodeCount()))
	case kind == KindNode && (!ok || t.Followers != ""):
		bad(fmt.Sprintf("one node: k1..k%d, leader(TOPIC) or controller()", c.nodeCount()))
	case !ok:
		bad(fmt.Sprintf("k1..k%d, leader(TOPIC), followers(TOPIC), coordinator(txn:NAME), coordinator(group:G) or controller()", c.nodeCount()))
	case t.Node != "" && t.ID() > c.nodeCount():
		c.errorf(v.at(0), "node %s does not exist: the runbook has %s", t.Node, nodesPhrase(c.nodeCount()))
	case t.Coordinator != nil:
		c.checkCoordinator(t, v)
	case t.Controller:
	case t.Node == "":
		topic := t.Leader + t.Followers
		tp := v.at(strings.IndexByte(v.text, '(') + 1)
		if topic == "" {
			c.errorf(tp, "%s names no topic: write %sTOPIC)", v.text, strings.TrimSuffix(v.text, ")"))
		} else if msg := topicError(topic); msg != "" {
			c.errorf(tp, "%s", msg)
		} else {
			c.useTopic(topic, tp)
		}
	}
}

// checkDuration checks a duration: positive, and at most maxDuration.
func (c *checker) checkDuration(v value, what string, bad func(want string)) {
	d, err := time.ParseDuration(v.text)
	switch {
	case err != nil || d <= 0:
		bad("a positive duration like 100ms, 5s or 1m30s")
	case d > maxDuration:
		subject := v.text
		if strings.HasPrefix(what, "--") {
			subject = what + " " + v.text
		}
		c.errorf(v.at(0), "%s is too long: at most %s", subject, maxDurationText)
	}
}

// checkChoice checks the value of a KindWord flag against its choices.
func (c *checker) checkChoice(f *FlagSpec, v value) {
	if v.bad || slices.Contains(f.Choices, v.text) {
		return
	}
	c.errorf(v.at(0), "bad --%s %q: want %s%s", f.Name, v.text, strings.Join(f.Choices, ", "), didYouMean(v.text, f.Choices))
}

// useTopic checks that a topic used at p was created above.
func (c *checker) useTopic(topic string, p Pos) bool {
	if _, ok := c.created[topic]; ok {
		return true
	}
	var names []string
	for n := range c.created {
		names = append(names, n)
	}
	sort.Strings(names)
	c.errorf(p, "topic %q is used before any \"topic create %s\"%s", topic, topic, didYouMean(topic, names))
	return false
}

// semantics checks what a step means in its document: topics, node counts,
// flag combinations, background steps.
func (c *checker) semantics(st *Step) {
	topic, tp := "", st.Pos
	if len(st.Args) > 0 && len(st.dir.Args) > 0 && st.dir.Args[0].Kind == KindTopic {
		topic, tp = st.Args[0].Text, st.Args[0].Pos
		if topicError(topic) != "" || c.bad[tp] {
			topic = ""
		}
	}
	for _, f := range st.dir.Flags {
		if f.Deprecated != "" && st.given(f.Name) {
			c.warnf(st.flagPos(f.Name), "--%s is now called --%s", f.Name, f.Deprecated)
			if st.given(f.Deprecated) {
				c.errorf(st.flagPos(f.Name), "give --%s or --%s, not both: they are one setting", f.Deprecated, f.Name)
			}
		}
	}
	c.limits(st)
	if st.dir.check != nil {
		st.dir.check(c, st, topic, tp)
	}
	st.Action = st.dir.build(st)
	if p, ok := st.Action.(Produce); ok {
		// The one action that reads the front matter: its producer: map.
		p.Properties = stepProperties(st, c.d.Meta.Producer)
		c.checkProducer(st, p.Properties)
		st.Action = p
	}
	if a, ok := st.Action.(Consume); ok {
		// And the one that reads its consumer: map.
		a.Properties = consumeProperties(st, c.d.Meta.Consumer)
		st.Action = a
	}
	c.checkFault(st)
	c.trackNodes(st)
	if topic != "" && st.Op != OpTopicCreate {
		c.useTopic(topic, tp)
	}
}

// limits refuses a whole number beyond what run can take, naming the
// limit: the flag's own Max, else maxInt.
func (c *checker) limits(st *Step) {
	for _, f := range st.dir.Flags {
		if f.Kind != KindInt {
			continue
		}
		limit := f.Max
		if limit == 0 {
			limit = maxInt
		}
		if n, ok := st.givenInt(f.Name); ok && n > limit {
			c.errorf(st.flagPos(f.Name), "--%s %d is more than kafkabook can run: at most %s", f.Name, n, limitText(limit))
		}
	}
}

// positive reports a flag given as 0 that must be at least 1.
func (c *checker) positive(st *Step, name string) {
	if n, ok := st.givenInt(name); ok && n == 0 {
		c.errorf(st.flagPos(name), "--%s must be at least 1", name)
	}
}

// checkFault refuses a fault the cluster cannot apply: one the fault
// table says the runbook's backend cannot inject (Cannot, at the flag
// that asks for it when one does), or one the caller's Capabilities say
// its cluster cannot (an external cluster without a command for it).
func (c *checker) checkFault(st *Step) {
	if !st.dir.Hurts {
		return
	}
	for _, need := range st.needs() {
		if msg := Cannot(c.d.Meta.Backend, need); msg != "" {
			pos := st.Pos
			if _, flag, ok := strings.Cut(need, " --"); ok {
				pos = st.flagPos(flag)
			}
			if !c.said(msg) {
				c.errorf(pos, "%s", msg)
			}
			return
		}
	}
	if c.caps.FaultMissing == nil {
		return
	}
	for _, need := range st.needs() {
		if msg := c.caps.FaultMissing(need); msg != "" {
			c.errorf(st.Pos, "%s", msg)
			return
		}
	}
}

// needs are what the step asks of the cluster, as FaultMissing and the
// fault table (Cannot) are asked: the directive's name, and with it
// "restart --to" when the step moves a node to another release, "restart
// --set" when it changes a node's settings, and the flag of each of its
// fault table's rows the step gives ("link --delay" when it delays a
// link, "link --rate" when it narrows one).
func (st *Step) needs() []string {
	out := []string{st.dir.Name}
	flags := []string{"to", "set"}
	for _, k := range st.dir.Lands {
		if k.Flag != "" {
			flags = append(flags, k.Flag)
		}
	}
	for _, f := range flags {
		if st.dir.flag(f) != nil && st.given(f) {
			out = append(out, st.dir.Name+" --"+f)
		}
	}
	return out
}

// trackNodes follows which nodes the runbook has taken down, and warns
// about a wait for health while one of them is still down: that wait can
// only time out.
func (c *checker) trackNodes(st *Step) {
	switch st.Op {
	case OpKill, OpStop, OpStart:
		for _, a := range st.Args {
			if t := a.Target(); t.Node != "" {
				if st.Op == OpStart {
					delete(c.down, t.Node)
				} else {
					c.down[t.Node] = *st
				}
			}
		}
	case OpWaitHealthy:
		nodes := slices.Sorted(maps.Keys(c.down))
		for _, n := range nodes {
			by := c.down[n]
			c.warnf(st.Pos, "%s is down (%q on line %d) and nothing starts it again: this wait will time out; add \"start %s\" before it", n, by.Text, by.Pos.Line, n)
		}
	}
}
