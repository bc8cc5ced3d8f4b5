package runbook

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Step is one line of a kafka block, parsed against the directive registry.
// What the step does is its Action, typed and validated by Load; the rest
// is the line as written, for messages and reports.
type Step struct {
	Pos  Pos    // of the directive's first character
	Text string // the line as written, without comment and indentation
	Op   Op     // the directive, resolved once by the parser
	Name string // registry name: "produce", "wait leader", "kill", "topic create", ...
	Args []Arg  // positional arguments (keywords such as "in" left out), as written
	// Flags are the flags as written, by name without dashes; repeated
	// flags keep all. Only the checker reads them: the engine runs Action.
	Flags      map[string][]Arg
	Background bool   // trailing &
	Expr       *Expr  // for expect
	Action     Action // what the step does; nil when the line names no directive

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

// arg returns the i-th positional argument, or a zero Arg when the line has
// fewer (it was reported; the step never runs).
func (s *Step) arg(i int) Arg {
	if i < len(s.Args) {
		return s.Args[i]
	}
	return Arg{}
}

// flagValue returns the value of a flag: as given (under its name or the
// old name it replaced), else the registry default of the directive. A
// name the directive lacks is a bug in kafkabook, not in the runbook, so it
// panics rather than read as absent.
func (s *Step) flagValue(name string) (string, bool) {
	if s.dir == nil || s.dir.flag(name) == nil {
		panic(fmt.Sprintf("runbook: directive %q has no flag --%s", s.Name, name))
	}
	if v := s.Flags[name]; len(v) > 0 {
		return v[len(v)-1].Text, true
	}
	for _, f := range s.dir.Flags {
		if v := s.Flags[f.Name]; f.Deprecated == name && len(v) > 0 {
			return v[len(v)-1].Text, true // given under its old name
		}
	}
	if f := s.dir.flag(name); f.Default != "" {
		return f.Default, true
	}
	return "", false
}

// given reports whether the flag was written on the line.
func (s *Step) given(name string) bool {
	s.flagValue(name) // a name the directive lacks panics
	return len(s.Flags[name]) > 0
}

// flagStr returns the value of a flag (see flagValue for defaults), "" when
// it has none. The same fallback holds for the other getters: the registry
// is the one place where defaults live.
func (s *Step) flagStr(name string) string {
	v, _ := s.flagValue(name)
	return v
}

// flagInt returns the value of an integer flag, 0 when it has none or it is
// not a number (which the checker reported).
func (s *Step) flagInt(name string) int {
	n, _ := strconv.Atoi(s.flagStr(name))
	return n
}

// givenInt returns an integer flag's value when it was written and is a
// number.
func (s *Step) givenInt(name string) (int, bool) {
	if !s.given(name) {
		return 0, false
	}
	n, err := strconv.Atoi(s.flagStr(name))
	return n, err == nil
}

// flagDuration returns the value of a duration flag, 0 when it has none.
func (s *Step) flagDuration(name string) time.Duration {
	d, _ := time.ParseDuration(s.flagStr(name))
	return d
}

// flagBool reports whether a boolean flag is set: given without a value or
// with =true.
func (s *Step) flagBool(name string) bool {
	b, err := strconv.ParseBool(s.flagStr(name))
	return err == nil && b
}

// flagKeyValues returns the K=V values of a repeatable flag such as
// --config as a map; a later value wins.
func (s *Step) flagKeyValues(name string) map[string]string {
	s.flagValue(name) // a name the directive lacks panics
	out := map[string]string{}
	for _, a := range s.Flags[name] {
		k, val, _ := strings.Cut(a.Text, "=")
		out[k] = val
	}
	return out
}

// flagTarget returns the node a flag such as --via names, or the zero
// Target when it is not given.
func (s *Step) flagTarget(name string) Target {
	t, _ := parseTarget(s.flagStr(name))
	return t
}

// flagPos returns the position of a flag's value, or the step's.
func (s *Step) flagPos(name string) Pos {
	if v := s.Flags[name]; len(v) > 0 {
		return v[0].Pos
	}
	return s.Pos
}

// sides splits the arguments of a partition step at its |: the node names
// on the left and on the right; ok is false unless there is exactly one |
// with nodes on both sides.
func (s *Step) sides() (left, right []string, ok bool) {
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
