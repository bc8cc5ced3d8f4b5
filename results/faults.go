package results

import (
	"slices"
	"strings"
)

// A FaultKind is how the evidence reads one op of a fault event: the
// window it opens on its nodes (the report shades it; explain holds it
// against the losses inside it), the ops that end that window, and how the
// op is said in words. FaultKinds is the one table of them: the report's
// windows and explain's faults in effect both read it, and a test checks
// it against the cluster's fault table and the runbook's directives.
type FaultKind struct {
	Op      string
	Opens   string   // the window it opens on its nodes ("killed"); "" for a repair
	EndedBy []string // the ops that end that window
	// Away says the window takes its nodes down or away from the others,
	// so that explain names it as a cause of the losses inside it; a lossy
	// link does not.
	Away   bool
	Phrase string // the op in words, before its nodes: "kill of "
	// Off is set for a fault whose event carries an argument after its
	// nodes (loss's share, link's rate): the argument that means none,
	// with which the event ends the window instead of opening it.
	Off string
}

// Read splits a fault event's nodes into the nodes and k's argument, and
// says whether the event ends k's window (its argument is Off) rather
// than opening it.
func (k FaultKind) Read(nodes []string) (ns []string, ends bool) {
	if k.Off == "" || len(nodes) == 0 {
		return nodes, false
	}
	return nodes[:len(nodes)-1], nodes[len(nodes)-1] == k.Off
}

// FaultKinds lists every op a fault event may carry.
var FaultKinds = []FaultKind{
	{Op: "kill", Opens: "killed", EndedBy: []string{"start"}, Away: true, Phrase: "kill of "},
	{Op: "stop", Opens: "stopped", EndedBy: []string{"start"}, Away: true, Phrase: "stop of "},
	{Op: "powerloss", Opens: "lost power", EndedBy: []string{"start"}, Away: true, Phrase: "power loss of "},
	{Op: "pause", Opens: "paused", EndedBy: []string{"resume"}, Away: true, Phrase: "pause of "},
	{Op: "isolate", Opens: "isolated", EndedBy: []string{"rejoin"}, Away: true, Phrase: "isolation of "},
	{Op: "partition", Opens: "partitioned", EndedBy: []string{"heal"}, Away: true, Phrase: "network partition "},
	{Op: "loss", Opens: "lossy", EndedBy: []string{"heal"}, Phrase: "loss ", Off: "0%"},
	{Op: "link", Opens: "narrow link", EndedBy: []string{"heal"}, Phrase: "narrow link of ", Off: "0"},
	// delay is link --delay: its argument is the delay as written
	// ("100ms", "50ms --jitter 10ms --to k2,k3"), "0" when removed.
	{Op: "delay", Opens: "slow link", EndedBy: []string{"heal"}, Phrase: "delay on the link of ", Off: "0"},
	{Op: "disk", Opens: "disk fault", Away: true, Phrase: "disk fault of ", Off: "healthy"},
	{Op: "disk in force", Phrase: "disk faults at the run's end"},
	{Op: "corrupt", Phrase: "corruption of the newest segment on "},
	{Op: "clock", Opens: "clock stepped", Phrase: "clock jump of ", Off: "reset"},
	{Op: "broker add", Phrase: "addition of broker "},
	{Op: "broker remove", Phrase: "removal of broker "},
	{Op: "voter add", Phrase: "addition to the controller quorum of "},
	{Op: "voter remove", Phrase: "removal from the controller quorum of "},
	{Op: "reassign", Opens: "reassigning", EndedBy: []string{"reassigned"}, Phrase: "reassignment of "},
	{Op: "reassigned", Phrase: "end of the reassignment of "},
	{Op: "start", Phrase: "start of "},
	{Op: "resume", Phrase: "resume of "},
	{Op: "rejoin", Phrase: "rejoin of "},
	{Op: "heal", Phrase: "heal of the network"},
}

// FaultKindOf is op's row; ok is false for an op the table does not have.
func FaultKindOf(op string) (FaultKind, bool) {
	i := slices.IndexFunc(FaultKinds, func(k FaultKind) bool { return k.Op == op })
	if i < 0 {
		return FaultKind{}, false
	}
	return FaultKinds[i], true
}

// Closes lists the windows op ends, in the table's order.
func Closes(op string) []string {
	var out []string
	for _, k := range FaultKinds {
		if k.Opens != "" && slices.Contains(k.EndedBy, op) {
			out = append(out, k.Opens)
		}
	}
	return out
}

// Words says the fault in words, by its row's Phrase: "kill of k1, k2",
// "network partition k1 | k2 k3 (--one-way)", "narrow link of k2
// (10mbit/s)".
func (f Fault) Words() string {
	name := f.Op + " "
	k, known := FaultKindOf(f.Op)
	if known {
		name = k.Phrase
	}
	sep := ", "
	if f.Op == "partition" {
		sep = " "
	}
	all, arg := f.Nodes, ""
	if known && k.Off != "" && len(all) > 0 {
		all, arg = all[:len(all)-1], all[len(all)-1]
	}
	var nodes, flags []string
	if arg != "" {
		flags = append(flags, arg)
	}
	for _, n := range all {
		if strings.HasPrefix(n, "--") {
			flags = append(flags, n)
		} else {
			nodes = append(nodes, n)
		}
	}
	p := strings.TrimSpace(name + strings.Join(nodes, sep))
	if len(flags) > 0 {
		p += " (" + strings.Join(flags, " ") + ")"
	}
	return p
}
