package runbook

// The node faults and their repairs: kill, stop, start, pause, resume,
// isolate, rejoin. Each is the backend's operation of the same name
// (cluster.Faults), and each holds its row of the fault table: the state
// it leaves a node in (the window it opens) and what undoes it.
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
func faultDirective(op Op, example, summary string, lands FaultKind) *Directive {
	lands.Op = string(op)
	return &Directive{
		Lands:   []FaultKind{lands},
		Op:      op,
		build:   buildFault,
		Name:    string(op),
		Hurts:   true,
		Example: example,
		Summary: summary,
		Args:    []ArgSpec{{Name: "NODE", Kind: KindTarget, Many: true}},
	}
}

var stopDirective = faultDirective(OpStop, `stop followers(t)`, "Stop the nodes' broker processes cleanly with SIGTERM.", FaultKind{Opens: "stopped", EndedBy: []string{"start"}, Away: true, Phrase: "stop of ", Repair: "start", Observed: "the JVM gone, read from the process table (local: /proc; docker: the container's state; kubernetes: /proc in the pod); a JVM still there makes it unproven"})

var startDirective = faultDirective(OpStart, `start followers(t)
wait isr t --size 3 --timeout 2m`, "Start the nodes' broker processes again.", FaultKind{Phrase: "start of ", Observed: "the JVM running and not frozen, read from the process table; a JVM gone or frozen makes it unproven"})

var killDirective = faultDirective(OpKill, `kill leader(t)
start k1
wait healthy --timeout 2m`, "Kill the nodes' broker processes with SIGKILL.", FaultKind{Opens: "killed", EndedBy: []string{"start"}, Away: true, Phrase: "kill of ", Repair: "start", Observed: "the JVM gone, read from the process table (local: /proc; docker: the container's state; kubernetes: /proc in the pod); a JVM still there makes it unproven"})

var pauseDirective = faultDirective(OpPause, `pause k3`, "Freeze the nodes' broker processes with SIGSTOP.", FaultKind{Opens: "paused", EndedBy: []string{"resume"}, Away: true, Phrase: "pause of ", Repair: "resume", Observed: "the JVM stopped by the signal, read from the process table (local and kubernetes: state T in /proc; docker: the container paused); a JVM still running makes it unproven"})

var resumeDirective = faultDirective(OpResume, `resume k3`, "Continue paused nodes with SIGCONT.", FaultKind{Phrase: "resume of ", Observed: "the JVM running again, read from the process table; one still stopped makes it unproven"})

var isolateDirective = faultDirective(OpIsolate, `isolate k3`, "Cut the nodes off the network: they can reach neither each other nor the clients.", FaultKind{Opens: "isolated", EndedBy: []string{"rejoin"}, Away: true, Phrase: "isolation of ", Repair: "rejoin", Observed: "a connection from this machine to the node's broker port gets no answer within 250 ms (local backend); an answer makes it unproven"})

var rejoinDirective = faultDirective(OpRejoin, `rejoin k3
wait healthy --timeout 2m`, "Connect isolated nodes to the network again.", FaultKind{Phrase: "rejoin of ", Observed: "a connection from this machine to the node's broker port is answered (local backend); none makes it unproven"})

func buildFault(st *Step) Action { return Fault{Op: st.Op, Targets: st.targets()} }
