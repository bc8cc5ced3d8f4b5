package runbook

// powerloss: a node's power cut, its unsynced writes thrown away.

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
	Lands: []FaultKind{
		{Op: "powerloss", Opens: "lost power", EndedBy: []string{"start"}, Away: true, Phrase: "power loss of ", Repair: "start",
			Observed: "each JVM gone from the process table, and what each node's layer discarded unsynced (its own count of bytes, files and metadata changes); a layer that held nothing unsynced makes it unproven: a kill, no power loss",
			Cannot:   map[string]string{"docker": "cannot drop a container's unsynced writes", "kubernetes": "cannot drop a pod's unsynced writes", "external": "applies only the node faults of its cluster file"}},
	},
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
	c.needLayer(st, "powerloss")
	for _, a := range st.Args {
		if t := a.Target(); t.Node != "" {
			c.down[t.Node] = *st
		}
	}
}

// needLayer refuses a step of a directive with Layer that the machine (as
// the caller's Capabilities say) cannot serve: the layer under each
// node's data is a FUSE mount, run as root. A backend that cannot put it
// there is refused by the fault table (checkFault).
func (c *checker) needLayer(st *Step, what string) {
	if Cannot(c.d.Meta.Backend, what) != "" || c.caps.PowerLossMissing == "" {
		return
	}
	msg := what + " needs a FUSE file system under each node's data, and this machine lacks " + c.caps.PowerLossMissing +
		"; kafkabook does not fake it with something weaker"
	if !c.said(msg) {
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
