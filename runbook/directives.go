package runbook

import (
	"fmt"
	"strings"
)

// Kind is the kind of value an argument or flag takes. It decides how the
// value is checked and how it is shown in usage lines.
type Kind int

const (
	KindTopic    Kind = iota + 1 // a topic name
	KindTarget                   // k1..kN, leader(TOPIC), followers(TOPIC), controller()
	KindNode                     // k1..kN, leader(TOPIC) or controller(): one node
	KindNodes                    // k1..kN, comma-separated
	KindInt                      // a non-negative integer
	KindDuration                 // a Go duration: 100ms, 5s, 1m30s
	KindAcks                     // 0, 1 or all
	KindRegex                    // a Go regular expression
	KindReplicas                 // replica assignment: 1:2:3 (partitions separated by commas)
	KindKeyValue                 // KEY=VALUE
	KindBool                     // a switch: --flag, or --flag=true|false
	KindExpr                     // an expect expression
	KindKeyword                  // a literal word, such as "in"
	KindRate                     // messages per second: 2000/s
	KindSide                     // a node of a partition's side, or the | between the sides
	KindPercent                  // a share of packets: 30%
	KindGroup                    // a consumer group name, as written in the runbook
	KindWord                     // one of the flag's Choices
	KindRetries                  // a number of retries, or max
	KindText                     // any word: a key, an event id
	KindClient                   // a client: franz-go, java[@V], librdkafka[@V], spring[@V]
	KindProperty                 // a client property NAME=VALUE
	KindRelease                  // a Kafka release kafkabook knows: 4.3.1
	KindClock                    // a node, or the jump after the nodes: +1h, -30m, 0
)

// ArgSpec describes a positional argument of a directive.
type ArgSpec struct {
	Name string // metavariable in usage lines ("TOPIC"), or the keyword itself
	Kind Kind
	Many bool // one or more values (the rest of the line)
	// Optional lets the line end before this argument (the last one):
	// roll without nodes rolls every node.
	Optional bool
}

// FlagSpec describes a flag of a directive.
type FlagSpec struct {
	Name       string // without dashes
	Short      string // a one-letter name written with one dash (-X), or ""
	Kind       Kind
	Meta       string // metavariable in usage lines ("N", "DUR")
	Required   bool
	Many       bool     // may be repeated; every value is kept
	Deprecated string   // the flag's new name: still accepted, with a warning, and left out of usage lines
	Default    string   // the value when the flag is absent: the one place defaults live
	Max        int      // KindInt: the largest value; 0: maxInt
	Choices    []string // the words a KindWord flag takes
	Help       string   // one sentence for the reference
}

// Op identifies a directive: its name ("produce", "wait leader"). The
// parser resolves a step's name to its directive once; checks, the
// engine's dispatch and the reference key on it. Each directive's file
// declares its Op next to its registry entry.
type Op string

// Directive is one entry of the step language.
type Directive struct {
	Op         Op
	Name       string // "produce", "wait leader", ...
	Usage      string // generated from Args and Flags, e.g. "isr TOPIC [--via NODE]"
	Summary    string // one sentence: what the step does
	Args       []ArgSpec
	Flags      []FlagSpec
	Background bool // may run in the background with a trailing &
	// Hurts says that the step harms the cluster (a fault or its
	// repair): an attached cluster takes it only when the run is allowed
	// to hurt it (--allow-faults).
	Hurts bool
	// Example is the directive at work, one step a line, in the state the
	// examples of the directives before it leave: the reference shows it,
	// and the examples in registry order make EveryDirective, the runbook
	// that runs every directive on a real cluster.
	Example string
	// Alone says why Example is left out of EveryDirective ("": it is in).
	Alone string
	// Layer says that the step needs a cluster whose nodes' data sits on
	// the layer kafkabook serves under it (internal/powerfs): a run whose
	// runbook has such a step starts a cluster with it (Doc.NeedsLayer).
	Layer bool
	// Clock says that the step needs a cluster whose brokers run with
	// their wall clock under kafkabook's hand (libfaketime preloaded): a
	// run whose runbook has such a step starts a cluster with it
	// (Doc.NeedsClock).
	Clock bool
	// Lands are the fault events its steps record, each a row of the
	// fault table (FaultKinds): how the evidence reads it, what undoes
	// it, how a step shows it landed and which backends cannot inject it.
	Lands []FaultKind

	// check checks what the syntax cannot: ranges, combinations of flags,
	// and the order of steps (a read before its topic was created). topic
	// is the step's topic argument when it has a valid one.
	check func(c *checker, st *Step, topic string, tp Pos)
	// build turns the checked step into its typed Action, the value the
	// engine runs; every directive has one.
	build func(st *Step) Action
}

func (d *Directive) flag(name string) *FlagSpec {
	for i := range d.Flags {
		if d.Flags[i].Name == name {
			return &d.Flags[i]
		}
	}
	return nil
}

// short returns the flag whose one-letter name is s (-X), or nil.
func (d *Directive) short(s string) *FlagSpec {
	for i := range d.Flags {
		if d.Flags[i].Short != "" && d.Flags[i].Short == s {
			return &d.Flags[i]
		}
	}
	return nil
}

func (d *Directive) flagNames() []string {
	var names []string
	for _, f := range d.Flags {
		names = append(names, "--"+f.Name)
	}
	return names
}

// Common flags, shared so that they read the same everywhere.
var (
	viaFlag = FlagSpec{Name: "via", Kind: KindNode, Meta: "NODE",
		Help: "Ask this node instead of any node of the cluster."}
	waitTimeout = FlagSpec{Name: "timeout", Kind: KindDuration, Meta: "DUR", Default: "60s",
		Help: "Give up, failing the run, after this long."}
)

// Directives is the registry of the step language, in the order of the
// reference, each entry in a file of its own with its Op, Action, build
// and check. The parser checks every step against it;
// docs/runbook-language.md and EveryDirective are generated from it.
var Directives = []*Directive{
	topicCreateDirective,
	produceDirective,
	isrDirective,
	waitProducersDirective,
	readDirective,
	waitLeaderDirective,
	waitISRDirective,
	waitHealthyDirective,
	stopDirective,
	startDirective,
	killDirective,
	pauseDirective,
	resumeDirective,
	isolateDirective,
	rejoinDirective,
	corruptDirective,
	restartDirective,
	rollDirective,
	sleepDirective,
	logsDirective,
	featuresDirective,
	featuresUpgradeDirective,
	partitionDirective,
	linkDirective,
	healDirective,
	brokerAddDirective,
	reassignDirective,
	waitReassignedDirective,
	electDirective,
	brokerRemoveDirective,
	voterAddDirective,
	voterRemoveDirective,
	lossDirective,
	consumeDirective,
	waitConsumerDirective,
	startConsumerDirective,
	offsetsDirective,
	stopConsumerDirective,
	crashConsumerDirective,
	transformDirective,
	pauseConsumerDirective,
	resumeConsumerDirective,
	pauseProducerDirective,
	resumeProducerDirective,
	expectDirective,
	powerlossDirective,
	diskDirective,
	clockDirective,
}

var directiveByName = map[string]*Directive{}

func init() {
	for _, d := range Directives {
		if d.build == nil || d.Op == "" || string(d.Op) != d.Name {
			panic(fmt.Sprintf("runbook: directive %q: its Op must be its name and it needs a build function", d.Name))
		}
		if directiveByName[d.Name] != nil {
			panic(fmt.Sprintf("runbook: directive %q registered twice", d.Name))
		}
		directiveByName[d.Name] = d
		d.Usage = usage(d)
	}
}

// Lookup returns the directive with the given name, or nil.
func Lookup(name string) *Directive { return directiveByName[name] }

func usage(d *Directive) string {
	parts := []string{d.Name}
	for _, a := range d.Args {
		s := a.Name
		if a.Many && a.Kind != KindNodes && a.Kind != KindExpr && a.Kind != KindSide && a.Kind != KindClock {
			s += "..."
		}
		if a.Optional {
			s = "[" + s + "]"
		}
		parts = append(parts, s)
	}
	for _, f := range d.Flags {
		if f.Deprecated != "" {
			continue
		}
		s := "--" + f.Name
		if f.Short != "" {
			s = "-" + f.Short
		}
		if f.Kind != KindBool {
			s += " " + f.Meta
		}
		if !f.Required {
			s = "[" + s + "]"
		}
		if f.Many {
			s += "..."
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}
