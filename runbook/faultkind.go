package runbook

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/results"
)

// A FaultKind is one row of the fault table: an op a fault event may
// carry, held by the directive whose steps record it (Directive.Lands),
// so that a fault is one row in its directive's file. The row says how
// the evidence reads the event (the window it opens on its nodes, which
// the report shades and explain holds against the losses inside it; the
// ops that end that window; the op in words), what undoes it (the repair
// the heal between runs applies), how a step shows that it landed, and
// which backends cannot inject it, with why. FaultKinds is the table:
// explain, the report, check's refusals, the backends' registry, the
// cluster's heal and node operations and the reference all read it.
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
	// Repair is the step the heal between runs applies to undo the fault
	// ("start", "heal", "disk --heal", "clock --reset"); "" for an op that
	// undoes one, or leaves nothing to undo.
	Repair string
	// Observed says how a step shows the fault landed: what it reads of
	// the cluster into the event's observed, and what makes the fault
	// unproven. "" where the event carries no reading.
	Observed string
	// Flag is the flag of the directive that makes a step land as this
	// op ("delay": link --delay lands as delay); "" for every step of it.
	Flag string
	// Cannot lists the backends that cannot inject the fault, each with
	// why, in words after the backend's name ("does not start its brokers
	// with libfaketime preloaded"); check refuses a step of it on them.
	Cannot map[string]string
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

// FaultKinds is the fault table: every directive's rows, in the
// registry's order.
var FaultKinds = func() []FaultKind {
	var out []FaultKind
	for _, d := range Directives {
		out = append(out, d.Lands...)
	}
	return out
}()

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

// FaultWords says a fault event in words, by its row's Phrase: "kill of
// k1, k2", "network partition k1 | k2 k3 (--one-way)", "narrow link of k2
// (10mbit/s)".
func FaultWords(f results.Fault) string {
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

// Cannot says why a cluster of backend cannot do what a step needs (a
// directive's name, or "link --delay": Step.needs), by the fault table's
// Cannot; "" when it can, or backend is "" (chosen when the run starts).
func Cannot(backend, need string) string {
	name, flag, _ := strings.Cut(need, " --")
	d := Lookup(name)
	if d == nil || backend == "" {
		return ""
	}
	for _, k := range d.Lands {
		if k.Flag != flag {
			continue
		}
		if why, ok := k.Cannot[backend]; ok {
			return fmt.Sprintf("%s needs %s (backend: %s %s)", need, canList(k), backend, why)
		}
	}
	return ""
}

// canList names the backends that can inject k: "the local backend",
// "the local or docker backend".
func canList(k FaultKind) string {
	var can []string
	for _, b := range Backends {
		if _, no := k.Cannot[b]; !no {
			can = append(can, b)
		}
	}
	if len(can) > 1 {
		return "the " + strings.Join(can[:len(can)-1], ", ") + " or " + can[len(can)-1] + " backend"
	}
	return "the " + strings.Join(can, "") + " backend"
}
