package runbook

// The node faults and their repairs: kill, stop, start, pause, resume,
// isolate, rejoin, and restart (a clean stop, then a start, node by node). Each is the backend's operation of the same name
// (cluster.Faults, which says what each leaves and what undoes it).

const (
	OpKill    Op = "kill"
	OpStop    Op = "stop"
	OpStart   Op = "start"
	OpPause   Op = "pause"
	OpResume  Op = "resume"
	OpIsolate Op = "isolate"
	OpRejoin  Op = "rejoin"
	OpRestart Op = "restart"
)

// Fault applies a node fault or repair of the cluster backend: kill, stop,
// start, pause, resume, isolate, rejoin, restart. Op is the directive, whose name
// is the backend's operation.
type Fault struct {
	Op      Op
	Targets []Target
}

func (Fault) action() {}

// faultDirective is the registry entry of a node fault or repair.
func faultDirective(op Op, example, summary string) *Directive {
	return &Directive{
		Op:      op,
		build:   buildFault,
		Name:    string(op),
		Hurts:   true,
		Example: example,
		Summary: summary,
		Args:    []ArgSpec{{Name: "NODE", Kind: KindTarget, Many: true}},
	}
}

var stopDirective = faultDirective(OpStop, `stop followers(t)`, "Stop the nodes' broker processes cleanly with SIGTERM.")

var startDirective = faultDirective(OpStart, `start followers(t)
wait isr t --size 3 --timeout 2m`, "Start the nodes' broker processes again.")

var killDirective = faultDirective(OpKill, `kill leader(t)
start k1
wait healthy --timeout 2m`, "Kill the nodes' broker processes with SIGKILL.")

var pauseDirective = faultDirective(OpPause, `pause k3`, "Freeze the nodes' broker processes with SIGSTOP.")

var resumeDirective = faultDirective(OpResume, `resume k3`, "Continue paused nodes with SIGCONT.")

var isolateDirective = faultDirective(OpIsolate, `isolate k3`, "Cut the nodes off the network: they can reach neither each other nor the clients.")

var rejoinDirective = faultDirective(OpRejoin, `rejoin k3
wait healthy --timeout 2m`, "Connect isolated nodes to the network again.")

var restartDirective = faultDirective(OpRestart, `restart k2
wait healthy --timeout 2m`, "Restart the nodes one after the other, as an operator does to change a setting: each is stopped cleanly (SIGTERM: controlled shutdown moves its leaderships away first) and started again on its data before the next; the evidence records each stop and start. It does not wait for the ISR between nodes: add wait isr or wait healthy after it, or restart one node a step.")

func buildFault(st *Step) Action { return Fault{Op: st.Op, Targets: st.targets()} }
