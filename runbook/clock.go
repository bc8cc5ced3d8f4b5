package runbook

import (
	"strings"
	"time"
)

// clock: a node's wall clock stepped, forward or back.

const OpClock Op = "clock"

// Clock steps the nodes' wall clocks: clock NODE... +DUR | -DUR, or
// clock NODE... --reset (or 0).
type Clock struct {
	Targets []Target
	Jump    time.Duration // from where each node's clock is
	Written string        // the jump as written: +1h, -30m; "reset"
	Reset   bool          // the clocks right again
}

func (Clock) action() {}

// maxJump bounds one jump: ten years either way.
const maxJump = 10 * 365 * 24 * time.Hour

var clockDirective = &Directive{
	Op:    OpClock,
	build: buildClock,
	check: checkClock,
	Name:  "clock",
	Summary: "Step the nodes' wall clocks by +DUR or -DUR from where each is (0 or --reset: right again; the heal between runs too), as when a machine's clock is stepped: " +
		"the broker's System.currentTimeMillis moves, its monotonic clock (System.nanoTime) does not, so what Kafka times by the wall clock (its Time.milliseconds) moves with it and what it times by the monotonic clock does not; examples/clock-jump.md and examples/clock-timers.md show which of Kafka's timers read which. " +
		"The step reads each node's offset back through Kafka (the timestamp the broker puts on a LogAppendTime record) and says it. " +
		"Needs libfaketime preloaded into each broker: on the local backend root and Debian's faketime package, on the docker and kubernetes backends the image `kafkabook image build` makes (its base holds it); no drift: libfaketime's rate also scales the JVM's own waits.",
	Args: []ArgSpec{{Name: "NODE... +DUR|-DUR", Kind: KindClock, Many: true}},
	Flags: []FlagSpec{
		{Name: "reset", Kind: KindBool, Help: "The nodes' clocks right again, as 0 does."},
	},
	Example: `clock k3 +1h
clock k3 --reset`,
	Lands: []FaultKind{
		{Op: "clock", Opens: "clock stepped", Phrase: "clock jump of ", Off: "reset", Repair: "clock --reset",
			Observed: "the time the node's broker stamps on a record it appends to a LogAppendTime topic it leads, against this host's clock",
			Cannot:   map[string]string{"external": "applies only the node faults of its cluster file"}},
	},
	Hurts: true,
	Clock: true,
	Alone: "it needs a cluster of its own whose brokers run with libfaketime; the local backend's TestClock and the docker and kubernetes backends' TestFaults run it",
}

// jumpArg says whether a clock argument is the jump, not a node: a sign
// or a digit first (a node is k1, leader(t), ...).
func jumpArg(s string) bool {
	return s != "" && (strings.ContainsRune("+-", rune(s[0])) || s[0] >= '0' && s[0] <= '9')
}

// parseJump reads +1h, -30m, +90s, +1h30m or 0; msg says what is wrong
// with anything else.
func parseJump(s string) (time.Duration, string) {
	if s == "0" {
		return 0, ""
	}
	d, err := time.ParseDuration(s)
	switch {
	case err == nil && d > 0 && s[0] != '+':
		return 0, "write +" + s + " or -" + s + ": a jump says which way"
	case err != nil || d == 0:
		return 0, "want a jump like +1h, -30m or +90s, or 0 for the right time"
	case d.Abs() > maxJump:
		return 0, "at most ten years (87600h) either way"
	}
	return d, ""
}

func buildClock(st *Step) Action {
	c := Clock{Reset: st.flagBool("reset")}
	for _, a := range st.Args {
		if jumpArg(a.Text) {
			c.Jump, _ = parseJump(a.Text)
			c.Written = a.Text
			continue
		}
		c.Targets = append(c.Targets, a.Target())
	}
	if c.Written == "0" {
		c.Reset = true
	}
	if c.Reset {
		c.Written, c.Jump = "reset", 0
	}
	return c
}

// checkClock wants the nodes first and then one jump, or --reset without
// one, and a machine and backend that can step a broker's clock
// (needClock).
func checkClock(c *checker, st *Step, _ string, _ Pos) {
	var nodes int
	var jump *Arg
	for i, a := range st.Args {
		if !jumpArg(a.Text) {
			nodes++
			if jump != nil {
				c.errorf(a.Pos, "the jump comes last: clock NODE... %s", jump.Text)
			}
			continue
		}
		if jump != nil {
			c.errorf(a.Pos, "clock takes one jump, not %s and %s", jump.Text, a.Text)
			continue
		}
		jump = &st.Args[i]
	}
	switch {
	case nodes == 0 && len(st.Args) > 0:
		c.errorf(st.Args[0].Pos, "clock needs the nodes first: clock NODE... %s", st.Args[0].Text)
	case jump == nil && !st.given("reset") && nodes > 0 && !c.mentioned["drift"]:
		c.errorf(st.lineEnd(), "clock needs a jump (+1h, -30m) or --reset")
	case jump != nil && st.given("reset"):
		c.errorf(st.flagPos("reset"), "clock takes a jump or --reset, not both")
	}
	c.needClock(st)
}

// needClock refuses a clock step that the machine (as the caller's
// Capabilities say) cannot serve: libfaketime preloaded into a broker's
// JVM, which the local backend takes from the host (the docker and
// kubernetes backends from their image). A backend that cannot preload it is refused by the
// fault table (checkFault).
func (c *checker) needClock(st *Step) {
	if Cannot(c.d.Meta.Backend, "clock") != "" || c.caps.ClockMissing == "" || c.d.Meta.Backend == "docker" || c.d.Meta.Backend == "kubernetes" {
		return
	}
	msg := "clock needs libfaketime preloaded into each broker, and this machine lacks " + c.caps.ClockMissing +
		"; kafkabook does not fake a clock with something weaker"
	if !c.said(msg) {
		c.errorf(st.Pos, "%s", msg)
	}
}
