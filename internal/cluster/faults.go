package cluster

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkabook/kafkabook/runbook"
)

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
	Restart Op = "restart" // stop, then start, node by node
)

// A Fault is one of the node operations a backend applies, with what the
// fault table (runbook.FaultKinds, in the directive of the same name)
// says of it: the state it leaves a node in (the window it opens) and
// the repair that undoes it. Faults lists them: the CLI's commands and
// their help, the repairs heal applies (BringBack), the commands an
// external cluster file must name for a fault (a fault needs its repair),
// and the states an external backend records all read it, so a new node
// fault is its directive's row, a line here and its Apply in each
// backend.
type Fault struct {
	Op     Op
	Leaves State  // a node's state once the op succeeded
	Repair Op     // the op that undoes it; "" for a repair
	Help   string // what it does, for the CLI (cluster OP)
	// Steps are the ops a compound fault is made of, applied node by node
	// in order (restart: stop, then start). Backends implement the simple
	// ops only; Apply expands a compound one.
	Steps []Op
}

// node is the row of op with its state and repair from the fault table:
// an op that opens no window (a repair, a compound fault) leaves its
// nodes running.
func node(op Op, help string, steps ...Op) Fault {
	f := Fault{Op: op, Leaves: Running, Help: help, Steps: steps}
	if k, ok := runbook.FaultKindOf(string(op)); ok && k.Opens != "" {
		f.Leaves, f.Repair = State(k.Opens), Op(k.Repair)
	}
	return f
}

// repairOf is the repair the fault table names for a fault that is no
// node operation (disk: "disk --heal"), as heal says it.
func repairOf(fault string) Op {
	k, _ := runbook.FaultKindOf(fault)
	return Op(k.Repair)
}

// Faults lists every Op in the order the CLI shows them.
var Faults = []Fault{
	node(Kill, "SIGKILL the nodes' JVMs"),
	node(Stop, "Shut the nodes down gracefully (SIGTERM) and wait"),
	node(Start, "Restart stopped or killed nodes on their existing data"),
	node(Pause, "Freeze the nodes' JVMs (SIGSTOP)"),
	node(Resume, "Thaw paused nodes (SIGCONT)"),
	node(Isolate, "Cut the nodes off from every other node and from the host"),
	node(Rejoin, "Put isolated nodes back on the network, same address"),
	node(Restart, "Restart the nodes one after the other: a clean stop (SIGTERM, controlled shutdown), then a start on the same data", Stop, Start),
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

// Simple says whether a backend applies op itself (an op of Faults
// without Steps).
func Simple(op Op) bool {
	f, ok := FaultOf(op)
	return ok && len(f.Steps) == 0
}

// Apply performs op on nodes through b: a simple op in one call, a
// compound one node by node, step by step, as an operator would. landed
// (nil: none) hears each simple op as it lands, with the time it was
// begun, so that the evidence has a stop and a start for a restart.
func Apply(ctx context.Context, b Backend, op Op, nodes []string, progress Progress, landed func(op Op, nodes []string, at time.Time)) error {
	f, ok := FaultOf(op)
	if !ok {
		return fmt.Errorf("unknown operation %q", op)
	}
	do := func(op Op, nodes []string) error {
		at := time.Now().UTC()
		if err := b.Apply(ctx, op, nodes, progress); err != nil {
			return err
		}
		if landed != nil {
			landed(op, nodes, at)
		}
		return nil
	}
	if len(f.Steps) == 0 {
		return do(op, nodes)
	}
	for _, n := range nodes {
		for _, step := range f.Steps {
			if err := do(step, []string{n}); err != nil {
				return fmt.Errorf("%s %s: %w", op, n, err)
			}
		}
	}
	return nil
}
