package runbook

import (
	"maps"
	"slices"
	"time"
)

// The verbs of a consumer group, started by consume or transform: wait
// consumer, start consumer, offsets, stop consumer, crash consumer.

const (
	OpWaitConsumer  Op = "wait consumer"
	OpStartConsumer Op = "start consumer"
	OpOffsets       Op = "offsets"
	OpStopConsumer  Op = "stop consumer"
	OpCrashConsumer Op = "crash consumer"
)

// CrashConsumer kills a group's member: crash consumer G.
type CrashConsumer struct{ Group string }

// StartConsumer starts another member of a group: start consumer G.
type StartConsumer struct{ Group string }

// StopConsumer stops a group's member cleanly: stop consumer G.
type StopConsumer struct{ Group string }

// WaitConsumer waits for a group's member to catch up: wait consumer G.
type WaitConsumer struct {
	Group   string
	Timeout time.Duration
}

// Offsets shows a group's committed offsets: offsets G.
type Offsets struct{ Group string }

func (CrashConsumer) action() {}

func (StartConsumer) action() {}

func (StopConsumer) action() {}

func (WaitConsumer) action() {}

func (Offsets) action() {}

// groupDirective is the registry entry of a verb on a group: VERB G.
func groupDirective(op Op, example, summary string, build func(*Step) Action) *Directive {
	return &Directive{
		Op:      op,
		build:   build,
		check:   checkConsumerStep,
		Name:    string(op),
		Example: example,
		Summary: summary,
		Args:    []ArgSpec{{Name: "G", Kind: KindGroup}},
	}
}

var waitConsumerDirective = &Directive{
	Op:      OpWaitConsumer,
	build:   buildWaitConsumer,
	check:   checkConsumerStep,
	Name:    "wait consumer",
	Summary: "Wait until the group's member has handled every message it was given and its committed offsets have reached the end of every partition of its topic, or until it crashed (a member started with --crash-at is waited for until it crashes).",
	Args:    []ArgSpec{{Name: "G", Kind: KindGroup}},
	Flags:   []FlagSpec{waitTimeout},
	Example: `wait consumer g`,
}

var startConsumerDirective = groupDirective(OpStartConsumer, `start consumer g
wait consumer g`, "Start a new member of the group with the settings of its consume step (without the crash): it resumes from the committed offsets.", buildStartConsumer)

var offsetsDirective = groupDirective(OpOffsets, `offsets g`, "Show the group's committed offset of every partition, asked of the cluster through the admin API (OffsetFetch), next to each partition's end offset.", buildOffsets)

var stopConsumerDirective = groupDirective(OpStopConsumer, `stop consumer g`, "Stop the group's member cleanly: it finishes the batch in hand, commits as its mode does and leaves the group.", buildStopConsumer)

var crashConsumerDirective = groupDirective(OpCrashConsumer, `consume t --group h --commit auto &
crash consumer h`, "Kill the group's running member process with SIGKILL, as a server losing its process would: nothing is committed on the way out.", buildCrashConsumer)

func buildCrashConsumer(st *Step) Action { return CrashConsumer{Group: st.arg(0).Text} }

func buildStartConsumer(st *Step) Action { return StartConsumer{Group: st.arg(0).Text} }

func buildStopConsumer(st *Step) Action { return StopConsumer{Group: st.arg(0).Text} }

func buildOffsets(st *Step) Action { return Offsets{Group: st.arg(0).Text} }

func buildWaitConsumer(st *Step) Action {
	return WaitConsumer{Group: st.arg(0).Text, Timeout: st.flagDuration("timeout")}
}

// checkConsumerStep: the group was started by a consume step above.
func checkConsumerStep(c *checker, st *Step, topic string, tp Pos) {
	if len(st.Args) > 0 {
		c.useGroup(st.Args[0].Text, st.Args[0].Pos)
	}
}

// useGroup checks that a group used at p was started by a consume step above.
func (c *checker) useGroup(g string, p Pos) bool {
	if _, ok := c.groups[g]; ok {
		return true
	}
	names := slices.Sorted(maps.Keys(c.groups))
	c.errorf(p, "group %q is used before any \"consume TOPIC --group %s\"%s", g, g, didYouMean(g, names))
	return false
}

// declareGroup records the group a consume or transform step starts
// (--group) as reading topic; a group started twice is an error, since
// start consumer starts another member.
func (c *checker) declareGroup(st *Step, topic string) {
	g := st.flagStr("group")
	if g == "" || topicError(g) != "" {
		return
	}
	if p, dup := c.groups[g]; dup {
		c.errorf(st.flagPos("group"), "group %q is already consumed on line %d: start consumer %s starts another member", g, p.Line, g)
		return
	}
	c.groups[g] = st.flagPos("group")
	c.consumed[g] = topic
}
