package cluster

// Op is a fault or repair applied to nodes.
type Op string

const (
	Kill    Op = "kill"    // SIGKILL
	Stop    Op = "stop"    // graceful shutdown, waits for exit
	Start   Op = "start"   // restart a stopped or killed node on its data
	Pause   Op = "pause"   // SIGSTOP
	Resume  Op = "resume"  // SIGCONT
	Isolate Op = "isolate" // cut off from the network
	Rejoin  Op = "rejoin"  // back on the network, same address
)

// A Fault is one row of the node operations: the op, the state it leaves
// a node in, and the op that undoes it. Faults is the one table of them:
// the CLI's commands and their help, the repairs heal applies
// (BringBack), the commands an external cluster file must name for a
// fault (a fault needs its repair), and the states an external backend
// records all read it, so a new node fault is a row here and its Apply in
// each backend.
type Fault struct {
	Op     Op
	Leaves State  // a node's state once the op succeeded
	Repair Op     // the op that undoes it; "" for a repair
	Help   string // what it does, for the CLI (cluster OP)
}

// Faults lists every Op in the order the CLI shows them.
var Faults = []Fault{
	{Kill, Killed, Start, "SIGKILL the nodes' JVMs"},
	{Stop, Stopped, Start, "Shut the nodes down gracefully (SIGTERM) and wait"},
	{Start, Running, "", "Restart stopped or killed nodes on their existing data"},
	{Pause, Paused, Resume, "Freeze the nodes' JVMs (SIGSTOP)"},
	{Resume, Running, "", "Thaw paused nodes (SIGCONT)"},
	{Isolate, Isolated, Rejoin, "Cut the nodes off from every other node and from the host"},
	{Rejoin, Running, "", "Put isolated nodes back on the network, same address"},
}

// Ops lists every Op in the order the CLI shows them.
var Ops = func() []Op {
	ops := make([]Op, len(Faults))
	for i, f := range Faults {
		ops[i] = f.Op
	}
	return ops
}()

// FaultOf is op's row; ok is false for an op the table does not have.
func FaultOf(op Op) (Fault, bool) {
	for _, f := range Faults {
		if f.Op == op {
			return f, true
		}
	}
	return Fault{}, false
}

// RepairFor is the op that brings a node in state s back to running: the
// repair of the fault that leaves s (a node that exited on its own is
// started, as a killed one); "" when s needs none.
func RepairFor(s State) Op {
	if s == Exited {
		return Start
	}
	for _, f := range Faults {
		if f.Leaves == s && f.Repair != "" {
			return f.Repair
		}
	}
	return ""
}
