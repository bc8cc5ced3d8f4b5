package runbook

// powerloss: a node's power cut, its unsynced writes thrown away.

import "fmt"

const OpPowerloss Op = "powerloss"

// Powerloss cuts the nodes' power: powerloss NODE...
type Powerloss struct{ Targets []Target }

func (Powerloss) action() {}

var powerlossDirective = &Directive{
	Op:      OpPowerloss,
	build:   buildPowerloss,
	Name:    "powerloss",
	Summary: "Kill the nodes with SIGKILL and throw away every write they had not fsynced, as losing power would; start brings them back on what was durable. Needs the local backend with FUSE and root.",
	Args:    []ArgSpec{{Name: "NODE", Kind: KindTarget, Many: true}},
	check:   checkPowerloss,
	Example: `powerloss k1
start k1`,
	Hurts: true,
	Layer: true,
	Alone: "it needs a cluster on the power-loss layer; the local backend's TestPowerLoss and examples/power-loss.md run it",
}

func buildPowerloss(st *Step) Action { return Powerloss{Targets: st.targets()} }

// checkPowerloss refuses a power loss that the machine or the backend
// cannot inject truthfully (needLayer); it is never stood in for by a
// plain kill. The nodes it takes down stay down until a start, as after
// kill.
func checkPowerloss(c *checker, st *Step, topic string, tp Pos) {
	c.needLayer(st, "powerloss", "drop %s unsynced writes")
	for _, a := range st.Args {
		if t := a.Target(); t.Node != "" {
			c.down[t.Node] = *st
		}
	}
}

// needLayer refuses a step of a directive with Layer that the machine (as
// the caller's Capabilities say) or the backend the runbook asks for
// cannot serve: the layer under each node's data is a FUSE mount of the
// local backend, run as root.
// cannot says what the other backends cannot do, of "a container's" or
// "a pod's" (%s).
func (c *checker) needLayer(st *Step, what, cannot string) {
	var msg string
	switch {
	case c.d.Meta.Backend == "docker":
		msg = what + " needs the local backend (backend: docker cannot " + fmt.Sprintf(cannot, "a container's") + ")"
	case c.d.Meta.Backend == "kubernetes":
		msg = what + " needs the local backend (backend: kubernetes cannot " + fmt.Sprintf(cannot, "a pod's") + ")"
	case c.caps.PowerLossMissing != "":
		msg = what + " needs a FUSE file system under each node's data, and this machine lacks " + c.caps.PowerLossMissing +
			"; kafkabook does not fake it with something weaker"
	}
	if msg != "" && !c.said(msg) {
		c.errorf(st.Pos, "%s", msg)
	}
}

// said reports whether the checker already reported msg, so that a
// machine's shortcoming is told once, at the first step it stops.
func (c *checker) said(msg string) bool {
	for _, e := range c.errs {
		if e.Msg == msg {
			return true
		}
	}
	return false
}
