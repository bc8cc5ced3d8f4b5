package runbook

// The node faults and their repairs: kill, stop, start, pause, resume,
// isolate, rejoin. Each is the backend's operation of the same name
// (cluster.Faults, which says what each leaves and what undoes it).
// restart and roll, which may also change a node's release, are in
// restart.go.

const (
	OpKill    Op = "kill"
	OpStop    Op = "stop"
	OpStart   Op = "start"
	OpPause   Op = "pause"
	OpResume  Op = "resume"
	OpIsolate Op = "isolate"
	OpRejoin  Op = "rejoin"
)

// Fault applies a node fault or repair of the cluster backend: kill, stop,
// start, pause, resume, isolate, rejoin. Op is the directive, whose name
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

func buildFault(st *Step) Action { return Fault{Op: st.Op, Targets: st.targets()} }
