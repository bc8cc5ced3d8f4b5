package runbook

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// checker parses the steps of a Doc for one run and checks them against
// the registry and against what came before them in the document. Steps
// are checked in file order, so "used before created" is a question about
// the lines above.
type checker struct {
	d       *Doc
	run     int
	caps    Capabilities // what the machine can do, as the caller said
	stopped bool         // too many errors: the steps after are not checked
	errs    ErrorList
	warns   ErrorList // things that will go wrong when the runbook runs as written

	created    map[string]Pos    // topics created so far
	produced   map[string]bool   // topics produced to so far
	background bool              // a background step came before
	mentioned  map[string]bool   // the flags the current step names, even wrongly (splitFlags)
	bad        map[Pos]bool      // arguments with undefined parameters
	down       map[string]Step   // nodes killed or stopped and not started since, by the step that did it
	groups     map[string]Pos    // consumer groups started so far, by their consume step's --group
	consumed   map[string]string // the topic each group consumes
	added      int               // brokers the steps so far added (broker add)
}

// nodeCount is how many nodes the cluster has at the step being checked:
// the front matter's, and the brokers added above it.
func (c *checker) nodeCount() int { return c.d.Meta.Nodes + c.added }

func newChecker(d *Doc, run int) *checker {
	return &checker{
		d:        d,
		run:      run,
		created:  map[string]Pos{},
		produced: map[string]bool{},
		bad:      map[Pos]bool{},
		down:     map[string]Step{},
		groups:   map[string]Pos{},
		consumed: map[string]string{},
	}
}

func (c *checker) errorf(p Pos, format string, args ...any) {
	c.errs = append(c.errs, &Error{Pos: p, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) warnf(p Pos, format string, args ...any) {
	c.warns = append(c.warns, &Error{Pos: p, Msg: fmt.Sprintf(format, args...)})
}

// lookup expands ${name} for this run.
func (c *checker) lookup(name string) (string, bool) {
	if name == "run" {
		return strconv.Itoa(c.run), true
	}
	v, ok := c.d.Meta.Params[name]
	return v, ok
}

// expandAll returns a copy of the blocks of the Doc with every step parsed
// for this run.
func (c *checker) expandAll() []Block {
	out := make([]Block, len(c.d.Blocks))
	for i, b := range c.d.Blocks {
		if b.Kind == Kafka {
			steps := make([]Step, len(b.Steps))
			for j, st := range b.Steps {
				if !c.stopped && len(c.errs) >= manyErrors {
					c.errs = append(c.errs, stopped(st.Pos))
					c.stopped = true
				}
				if c.stopped {
					steps[j] = st // not checked
					continue
				}
				steps[j] = c.step(st)
			}
			b.Steps = steps
		}
		out[i] = b
	}
	return out
}

// value is an expanded token with the file column of each byte.
type value struct {
	text string
	cols []int // len(text)+1 entries: the last is just past the end
	pos  Pos
	bad  bool // refers to an undefined or malformed parameter, already reported
}

func (v value) at(i int) Pos {
	p := v.pos
	if i >= 0 && i < len(v.cols) {
		p.Col = v.cols[i]
	}
	return p
}

func (v value) arg() Arg { return Arg{Text: v.text, Pos: v.at(0)} }

// arg records v as an argument, remembering whether it is bad.
func (c *checker) arg(v value) Arg {
	a := v.arg()
	if v.bad {
		c.bad[a.Pos] = true
	}
	return a
}

func (c *checker) expand(t token) value {
	text, cols := t.expand(c.lookup)
	bad := t.bad
	for _, p := range t.pieces {
		if p.ref != "" {
			if _, ok := c.lookup(p.ref); !ok {
				bad = true
			}
		}
	}
	return value{text: text, cols: cols, pos: t.pos, bad: bad}
}

func isFlag(t token) bool {
	r := t.raw
	return !t.quoted && len(r) > 1 && r[0] == '-' && (r[1] == '-' || r[1] >= 'a' && r[1] <= 'z' || r[1] >= 'A' && r[1] <= 'Z')
}

// unavailable names faults people ask for that this machine cannot inject
// truthfully: check says so rather than run something weaker.
var unavailable = map[string]string{
	"delay": "delay is not available: the kernels kafkabook runs on have no tc netem, and it will not fake delay with something weaker; loss NODE PERCENT drops packets",
}

// resolve finds the directive a step line starts with and how many tokens
// its name takes.
func (c *checker) resolve(toks []token) (*Directive, int) {
	t0 := toks[0]
	if !t0.plain() {
		c.errorf(t0.pos, "a step starts with a directive name, not %s", t0.raw)
		return nil, 0
	}
	w0 := t0.raw
	if len(toks) > 1 && toks[1].plain() {
		if d := Lookup(w0 + " " + toks[1].raw); d != nil {
			return d, 2
		}
	}
	if d := Lookup(w0); d != nil {
		return d, 1
	}
	if why, ok := unavailable[w0]; ok {
		c.errorf(t0.pos, "%s", why)
		return nil, 0
	}
	var subs, full []string
	for _, d := range Directives {
		if first, second, ok := strings.Cut(d.Name, " "); ok && first == w0 {
			subs = append(subs, second)
			full = append(full, d.Name)
		}
	}
	if len(subs) > 0 {
		if len(toks) < 2 {
			c.errorf(t0.pos, "%q needs one of: %s", w0, strings.Join(subs, ", "))
			return nil, 0
		}
		name := w0 + " " + toks[1].raw
		c.errorf(toks[1].pos, "unknown directive %q%s", name, didYouMean(name, full))
		return nil, 0
	}
	// Suggest against names and first words of two-word names; a first
	// word of a group with one member suggests that member.
	var cands []string
	group := map[string][]string{}
	for _, d := range Directives {
		cands = append(cands, d.Name)
		if first, _, ok := strings.Cut(d.Name, " "); ok {
			group[first] = append(group[first], d.Name)
		}
	}
	for first := range group {
		cands = append(cands, first)
	}
	sort.Strings(cands)
	s := suggest(w0, cands)
	if g := group[s]; len(g) == 1 {
		s = g[0]
	}
	hint := ""
	if s != "" {
		hint = ` (did you mean "` + s + `"?)`
	}
	c.errorf(t0.pos, "unknown directive %q%s", w0, hint)
	return nil, 0
}

// step parses one lexed step line for this run: it resolves the
// directive, reads the flags and positional arguments against the
// directive's table entry, reporting every problem rather than the first,
// and then checks what the step means after the steps before it.
func (c *checker) step(raw Step) Step {
	st := Step{
		Pos:        raw.Pos,
		Text:       raw.Text,
		Background: raw.Background,
		Flags:      map[string][]Arg{},
		toks:       raw.toks,
	}
	d, n := c.resolve(raw.toks)
	if d == nil {
		return st
	}
	st.dir, st.Op, st.Name = d, d.Op, d.Name
	end := st.Pos
	end.Col += len(strings.TrimSuffix(st.Text, "&"))
	end.Col = max(end.Col, st.Pos.Col+1)

	if st.Background && !d.Background {
		p := st.Pos
		p.Col += len(st.Text) - 1
		c.errorf(p, "only produce can run in the background: %s cannot end in &", d.Name)
	}
	pos, mentioned := c.splitFlags(&st, raw.toks[n:])
	c.mentioned = mentioned
	missing := c.positional(&st, pos, end)
	for _, f := range d.Flags {
		if f.Required && !mentioned[f.Name] && !missing {
			c.errorf(end, "missing --%s %s%s", f.Name, f.Meta, usageNote(d))
		}
	}
	c.semantics(&st)
	return st
}

// usageNote is the " (usage: ...)" ending of an error about how a step is
// written, so that the error shows the right way to write it.
func usageNote(d *Directive) string {
	return " (usage: " + d.Usage + ")"
}

// splitFlags reads the tokens after the directive name. Flags may come
// anywhere, so each is read into st.Flags where it stands, and the other
// tokens are returned as the positional values, in order. An expression
// (expect) is all positional: its operators are not flags. mentioned holds
// every flag name written, even wrongly, so that a misspelt required flag
// is not reported missing as well.
func (c *checker) splitFlags(st *Step, toks []token) (pos []value, mentioned map[string]bool) {
	exprArgs := len(st.dir.Args) > 0 && st.dir.Args[0].Kind == KindExpr
	mentioned = map[string]bool{}
	for i := 0; i < len(toks); i++ {
		if exprArgs || !isFlag(toks[i]) {
			pos = append(pos, c.expand(toks[i]))
			continue
		}
		i = c.readFlag(st, toks, i, mentioned)
	}
	return pos, mentioned
}

// readFlag reads the flag at toks[i] into st.Flags, with its value when that
// is the next token, and checks the value against the flag's kind. It
// returns the index of the last token it used, so that splitFlags does not
// read a flag's value as a positional argument.
func (c *checker) readFlag(st *Step, toks []token, i int, mentioned map[string]bool) int {
	d, t := st.dir, toks[i]
	v := c.expand(t)
	trimmed := strings.TrimLeft(v.text, "-")
	dashes := len(v.text) - len(trimmed)
	name, val, hasEq := strings.Cut(trimmed, "=")
	f := d.flag(name)
	if s := d.short(name); dashes == 1 && s != nil {
		f, name = s, s.Name
	} else if dashes != 2 {
		c.errorf(t.pos, "flags start with two dashes: write --%s", name)
	}
	mentioned[name] = true
	valueNext := i+1 < len(toks) && !isFlag(toks[i+1])
	if f == nil {
		// Skip what is probably its value, to avoid a second error.
		if c.unknownFlag(d, t.pos, name, mentioned) && !hasEq && valueNext {
			i++
		}
		return i
	}
	var fv value
	switch {
	case hasEq:
		k := dashes + len(name) + 1
		fv = value{text: val, cols: v.cols[k:], pos: v.at(k), bad: v.bad}
	case f.Kind == KindBool:
		fv = value{text: "true", cols: v.cols, pos: t.pos}
	case valueNext:
		i++
		fv = c.expand(toks[i])
	default:
		c.errorf(t.pos, "flag --%s needs a value: --%s %s", name, name, f.Meta)
		return i
	}
	if len(st.Flags[name]) > 0 && !f.Many {
		c.errorf(t.pos, "flag --%s given twice", name)
		return i
	}
	fv = c.nodeName(f.Kind, fv)
	st.Flags[name] = append(st.Flags[name], fv.arg())
	c.checkValue(f.Kind, fv, "--"+name)
	if f.Kind == KindWord {
		c.checkChoice(f, fv)
	}
	if f.Kind == KindKeyValue && d.Op == OpTopicCreate {
		c.checkTopicConfig(fv)
	}
	return i
}

// unknownFlag reports --name, which d does not take, at p, suggesting the
// flag it probably meant. It counts that flag as mentioned, so that it is
// not also reported missing, and says whether that flag takes a value, so
// that the caller can skip the value instead of reporting it as well.
func (c *checker) unknownFlag(d *Directive, p Pos, name string, mentioned map[string]bool) (takesValue bool) {
	if len(d.Flags) == 0 {
		c.errorf(p, "%s takes no flags, not --%s%s", d.Name, name, usageNote(d))
	} else {
		c.errorf(p, "unknown flag --%s for %s%s", name, d.Name, didYouMean("--"+name, d.flagNames()))
	}
	s := d.flag(strings.TrimPrefix(suggest("--"+name, d.flagNames()), "--"))
	if s != nil {
		mentioned[s.Name] = true
	}
	return s == nil || s.Kind != KindBool
}

// positional reads the positional values into st.Args (st.Expr for an
// expression), in the order the directive's table lists its arguments,
// and checks each against its kind. A missing argument is reported at end,
// the end of the line; positional says whether one was, since a missing
// required flag is then not reported as well.
func (c *checker) positional(st *Step, pos []value, end Pos) (missing bool) {
	d := st.dir
	usage := usageNote(d)
	pi := 0
	for _, a := range d.Args {
		if pi >= len(pos) && a.Optional {
			break
		}
		if pi >= len(pos) {
			c.errorf(end, "missing %s%s", a.Name, usage)
			missing = true
			break
		}
		switch {
		case a.Kind == KindExpr:
			ok := true
			for _, v := range pos {
				ok = ok && !v.bad
			}
			if ok {
				st.Expr = c.expr(pos)
			}
			pi = len(pos)
		case a.Kind == KindKeyword:
			if pos[pi].text != a.Name {
				// Report it, and read on as if it were there.
				c.errorf(pos[pi].at(0), "expected %q here, not %q%s", a.Name, pos[pi].text, usage)
				continue
			}
			pi++
		case a.Kind == KindNodes:
			for _, v := range pos[pi:] {
				for _, part := range splitValue(v, ',') {
					if part.text == "" {
						continue
					}
					part = c.nodeName(KindNodes, part)
					st.Args = append(st.Args, c.arg(part))
					c.checkValue(KindNodes, part, a.Name)
				}
			}
			pi = len(pos)
		case a.Many:
			for _, v := range pos[pi:] {
				v = c.nodeName(a.Kind, v)
				st.Args = append(st.Args, c.arg(v))
				c.checkValue(a.Kind, v, a.Name)
			}
			pi = len(pos)
		default:
			v := c.nodeName(a.Kind, pos[pi])
			st.Args = append(st.Args, c.arg(v))
			c.checkValue(a.Kind, v, a.Name)
			pi++
		}
	}
	if pi < len(pos) {
		c.errorf(pos[pi].at(0), "too many arguments for %s: %q%s", d.Name, pos[pi].text, usage)
	}
	return missing
}

// splitValue splits v at every sep, keeping columns.
func splitValue(v value, sep byte) []value {
	var out []value
	start := 0
	for i := 0; i <= len(v.text); i++ {
		if i == len(v.text) || v.text[i] == sep {
			out = append(out, value{text: v.text[start:i], cols: v.cols[start : i+1], pos: v.at(start), bad: v.bad})
			start = i + 1
		}
	}
	return out
}

// nodeName is a node value with the nodes' other names (Capabilities.
// NodeNames: broker1 of an external cluster) replaced by k1..kN, each
// part of a comma-separated list on its own; other values as they are.
// The replaced value's columns all point at its start.
func (c *checker) nodeName(kind Kind, v value) value {
	if len(c.caps.NodeNames) == 0 {
		return v
	}
	switch kind {
	case KindTarget, KindNode, KindNodes, KindSide, KindClock:
	default:
		return v
	}
	parts := strings.Split(v.text, ",")
	changed := false
	for i, p := range parts {
		if k, ok := c.caps.NodeNames[p]; ok {
			parts[i], changed = k, true
		}
	}
	if !changed {
		return v
	}
	text := strings.Join(parts, ",")
	start := v.at(0)
	cols := make([]int, len(text)+1)
	for i := range cols {
		cols[i] = start.Col
	}
	return value{text: text, cols: cols, pos: start, bad: v.bad}
}
