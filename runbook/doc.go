// Package runbook turns a Markdown runbook into a Doc: its front matter, its
// prose kept as written, and its kafka step blocks parsed into steps that each
// remember the file:line:col they came from, so that every message about a
// step, at check time or at run time, can point at the line the user wrote.
//
// Load parses and validates a runbook in one go and reports every problem it
// finds at once as an ErrorList. The directive registry (Directives) is the
// single description of the step language: the parser checks steps against
// it, and the reference docs/runbook-language.md is generated from it.
// Block.HTML renders a block for a report page, so that this package is
// the only one that parses Markdown.
//
// The package never touches a cluster; it is the only user of goldmark's
// parser in kafkabook.
package runbook

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Pos is a place in a runbook file. Line and Col are 1-based; Col counts
// bytes of the file line, so indentation and tabs count as written. A Pos
// with Line 0 names the file (or the command line) as a whole.
type Pos struct {
	File      string
	Line, Col int
}

// String formats p as "file:line:col", the form editors jump to.
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Meta is the front matter of a runbook, with defaults filled in and the
// command-line overrides applied.
type Meta struct {
	Title  string            // the title key, or else the first heading
	Kafka  []string          // Kafka versions to run against; default ["4.3.1"]
	Nodes  int               // number of nodes k1..kN; default 3
	Broker map[string]string // server.properties overrides, values as written
	Repeat int               // runs of the whole runbook; default 1
	Params map[string]string // parameter values after -p overrides
	// Backend is the cluster backend the runbook asks for: "local",
	// "docker", or "" for kafkabook's choice; --backend wins.
	Backend string
}

// DefaultKafka is the Kafka version used when the front matter names none.
const DefaultKafka = "4.3.1"

// BlockKind says what a Block holds.
type BlockKind int

const (
	Prose BlockKind = iota // Markdown text between code blocks
	Kafka                  // a fenced block with info string "kafka": steps
	Shell                  // a fenced block with info string "sh"
	Code                   // any other fenced code block, shown as is
)

func (k BlockKind) String() string {
	switch k {
	case Prose:
		return "prose"
	case Kafka:
		return "kafka"
	case Shell:
		return "sh"
	case Code:
		return "code"
	}
	return "BlockKind(" + strconv.Itoa(int(k)) + ")"
}

// Block is one piece of the runbook in file order. Prose blocks hold the
// Markdown between code blocks as written (without leading and trailing blank
// lines); code blocks hold their content.
type Block struct {
	Kind  BlockKind
	Pos   Pos    // first line of the block (the opening fence for code blocks)
	Text  string // prose: the Markdown source; code blocks: the code content
	Info  string // fence info string, e.g. "kafka" or "sh"
	Steps []Step // Kafka blocks: one per non-empty, non-comment line

	lines int // number of content lines of a code block
}

// Doc is a parsed and checked runbook.
type Doc struct {
	Path   string
	Source []byte
	Meta   Meta
	Blocks []Block // the whole file in order; steps expanded for run 1
	// Warnings are problems that do not stop the runbook from running but
	// will make it fail (a wait for health while a node is still down),
	// shown like errors, with a caret.
	Warnings ErrorList

	usesRun bool // some step refers to ${run}
}

// ShellBlocks returns the sh blocks of d in file order. They run only when
// the user allows shell blocks, so check tells the user they are there.
func (d *Doc) ShellBlocks() []Block {
	var out []Block
	for _, b := range d.Blocks {
		if b.Kind == Shell {
			out = append(out, b)
		}
	}
	return out
}

// Expand returns the blocks of d with ${run} expanded for the given run
// (1-based). Parameters were already expanded by Load. The steps of runs
// 1..Meta.Repeat were validated by Load, so for those runs Expand does not
// fail.
func (d *Doc) Expand(run int) ([]Block, error) {
	if !d.usesRun || run == 1 {
		return d.Blocks, nil
	}
	c := newChecker(d, run)
	blocks := c.expandAll()
	if len(c.errs) > 0 {
		c.errs.sort()
		return blocks, c.errs
	}
	return blocks, nil
}

// Overrides are the command-line settings that take precedence over the
// front matter. Zero values leave the front matter alone.
type Overrides struct {
	Params map[string]string // -p name=value
	Repeat int               // --repeat
	Kafka  []string          // --kafka
	Nodes  int               // --nodes
}

// Step is one line of a kafka block, parsed against the directive registry.
type Step struct {
	Pos        Pos              // of the directive's first character
	Text       string           // the line as written, without comment and indentation
	Op         Op               // the directive, resolved once by the parser
	Name       string           // registry name: "produce", "wait leader", "kill", "topic create", ...
	Args       []Arg            // positional arguments (keywords such as "in" left out)
	Flags      map[string][]Arg // by flag name without dashes; repeated flags keep all
	Background bool             // trailing &
	Expr       *Expr            // for expect

	dir  *Directive
	toks []token // the line's tokens before expansion, for Expand
}

// Directive returns the registry entry of s.
func (s Step) Directive() *Directive { return s.dir }

// Arg is one argument or flag value after ${} expansion, with the position
// of its first character as written.
type Arg struct {
	Text string
	Pos  Pos
}

func (s Step) flag(name string) (string, bool) {
	if v := s.Flags[name]; len(v) > 0 {
		return v[len(v)-1].Text, true
	}
	if s.dir != nil {
		for _, f := range s.dir.Flags {
			if v := s.Flags[f.Name]; f.Deprecated == name && len(v) > 0 {
				return v[len(v)-1].Text, true // given under its old name
			}
		}
		if f := s.dir.flag(name); f != nil && f.Default != "" {
			return f.Default, true
		}
	}
	return "", false
}

// Has reports whether the flag was given on the line.
func (s Step) Has(flag string) bool { return len(s.Flags[flag]) > 0 }

// String returns the value of a flag: as given, else the registry default of
// the directive, else "". The same fallback holds for Int, Duration and
// Strings: the registry is the one place where defaults live.
func (s Step) String(flag string) string {
	v, _ := s.flag(flag)
	return v
}

// Int returns the value of an integer flag (see String for defaults), 0
// when it has none.
func (s Step) Int(flag string) int {
	n, _ := strconv.Atoi(s.String(flag))
	return n
}

// Duration returns the value of a duration flag (see String for defaults),
// 0 when it has none.
func (s Step) Duration(flag string) time.Duration {
	d, _ := time.ParseDuration(s.String(flag))
	return d
}

// Bool reports whether a boolean flag is set: given without a value or
// with =true.
func (s Step) Bool(flag string) bool {
	v, ok := s.flag(flag)
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(v)
	return err == nil && b
}

// Strings returns every value of a repeatable flag in order.
func (s Step) Strings(flag string) []string {
	var out []string
	for _, a := range s.Flags[flag] {
		out = append(out, a.Text)
	}
	if len(out) == 0 {
		if v, ok := s.flag(flag); ok {
			out = []string{v}
		}
	}
	return out
}

// KeyValues returns the K=V values of a repeatable flag such as --config as
// a map; a later value wins.
func (s Step) KeyValues(flag string) map[string]string {
	out := map[string]string{}
	for _, v := range s.Strings(flag) {
		k, val, _ := strings.Cut(v, "=")
		out[k] = val
	}
	return out
}

// Replicas returns the replica assignment of --replicas: one list of broker
// ids per partition ("1:2:3,2:3:1" gives two partitions), or nil.
func (s Step) Replicas() [][]int32 {
	v, ok := s.flag("replicas")
	if !ok {
		return nil
	}
	r, _ := parseReplicas(v, 0)
	return r
}

// Target is a node, or the current leader or followers of a topic's
// partition 0, as written in a step. Exactly one field is set.
type Target struct {
	Node      string // "k1".."kN"
	Leader    string // topic of leader(TOPIC)
	Followers string // topic of followers(TOPIC)
}

// ID returns the broker id of a plain node target (k2 → 2), or 0.
func (t Target) ID() int {
	if t.Node == "" {
		return 0
	}
	n, _ := strconv.Atoi(t.Node[1:])
	return n
}

func (t Target) String() string {
	switch {
	case t.Leader != "":
		return "leader(" + t.Leader + ")"
	case t.Followers != "":
		return "followers(" + t.Followers + ")"
	}
	return t.Node
}

// Target parses a node argument: k1..kN, leader(TOPIC) or followers(TOPIC).
// Arguments of node kinds were validated by Load; anything else gives a
// zero Target.
func (a Arg) Target() Target {
	t, _ := parseTarget(a.Text)
	return t
}

// ParseRate parses a rate such as "2000/s" into messages per second; ok is
// false for anything else, a rate of zero included.
func ParseRate(s string) (perSecond float64, ok bool) {
	n, unit, found := strings.Cut(s, "/")
	if !found || unit != "s" {
		return 0, false
	}
	v, err := strconv.ParseFloat(n, 64)
	if err != nil || v <= 0 || v > 1e7 || strings.ContainsAny(n, "eE+-") {
		return 0, false
	}
	return v, true
}

// Rate returns the value of a rate flag in messages per second, 0 when it
// has none.
func (s Step) Rate(flag string) float64 {
	r, _ := ParseRate(s.String(flag))
	return r
}

// Sides splits the arguments of a partition step at its |: the node names
// on the left and on the right; ok is false unless there is exactly one |
// with nodes on both sides.
func (s Step) Sides() (left, right []string, ok bool) {
	bars := 0
	for _, a := range s.Args {
		switch {
		case a.Text == "|":
			bars++
		case bars == 0:
			left = append(left, a.Text)
		default:
			right = append(right, a.Text)
		}
	}
	return left, right, bars == 1 && len(left) > 0 && len(right) > 0
}

// Percent is the value of a PERCENT argument, "30%" → 30.
func (a Arg) Percent() int {
	n, _ := strconv.Atoi(strings.TrimSuffix(a.Text, "%"))
	return n
}
