package runbook

import (
	"fmt"
	"github.com/kafkabook/kafkabook/results"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Expr is the assertion of an expect step: FUNC(TOPIC) OP VALUE, such as
// lost(acks1) > 0 or p99(acksall) < 60s.
type Expr struct {
	Func  string // a results.Measures name: lost, acked, p99, ...
	Topic string // as written in the runbook
	Op    string // ==, !=, <, <=, >, >=
	Value string // as written: a whole number, or a duration for p50, p99 and max
	Want  int64  // Value as a count, or in nanoseconds for durations
	// Set is Value as a set of ids, when it is one ({m-004..m-010}): the
	// expectation then compares the ids the function counts, sorted.
	Set []string
	Pos Pos // of the function name

	topicPos Pos
}

// ExprFuncs are the functions of expect expressions with what they
// measure, in the order of the reference: results.Measures, the one table.
var ExprFuncs = func() []ExprFunc {
	var out []ExprFunc
	for _, m := range results.Measures {
		out = append(out, ExprFunc{m.Name, m.Summary, m.Group, m.IDs != nil})
	}
	return out
}()

// ExprFunc is a function of expect expressions, for the checker and the
// reference.
type ExprFunc struct {
	Name, Summary string
	Group         bool // takes a consumer group, not a topic
	IDs           bool // counts ids, so it also compares with a set of ids
}

// ExprOps are the comparison operators of expect expressions.
var ExprOps = []string{"==", "!=", "<", "<=", ">", ">="}

// IsDuration reports whether the function measures latency, so that Value
// is a duration and Want is in nanoseconds.
func (e *Expr) IsDuration() bool {
	m := results.FindMeasure(e.Func)
	return m != nil && m.Duration
}

// HoldsSet reports whether ids, sorted, satisfy an expression whose value
// is a set.
func (e *Expr) HoldsSet(ids []string) bool {
	equal := slices.Equal(ids, e.Set)
	return equal == (e.Op == "==")
}

// Holds reports whether got (a count, or nanoseconds for latencies)
// satisfies the expression.
func (e *Expr) Holds(got int64) bool {
	switch e.Op {
	case "==":
		return got == e.Want
	case "!=":
		return got != e.Want
	case "<":
		return got < e.Want
	case "<=":
		return got <= e.Want
	case ">":
		return got > e.Want
	case ">=":
		return got >= e.Want
	}
	return false
}

// String formats e canonically: "lost(acks1) > 0".
func (e *Expr) String() string {
	return fmt.Sprintf("%s(%s) %s %s", e.Func, e.Topic, e.Op, e.Value)
}

func funcNames() []string {
	var names []string
	for _, f := range ExprFuncs {
		names = append(names, f.Name)
	}
	return names
}

// expr parses the arguments of an expect step, joined by single blanks.
// It reports at most one error, at the first thing it cannot read.
func (c *checker) expr(args []value) *Expr {
	// Join the values, keeping each byte's column.
	var v value
	v.pos = args[0].pos
	for i, a := range args {
		if i > 0 {
			v.text += " "
			v.cols = append(v.cols, a.cols[0])
		}
		v.text += a.text
		v.cols = append(v.cols, a.cols[:len(a.text)]...)
	}
	v.cols = append(v.cols, args[len(args)-1].cols[len(args[len(args)-1].text)])

	s := v.text
	i := 0
	skip := func() {
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	word := func() string {
		j := i
		for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= '0' && s[i] <= '9' || s[i] >= 'A' && s[i] <= 'Z' || s[i] == '_') {
			i++
		}
		return s[j:i]
	}
	fail := func(format string, a ...any) *Expr {
		c.errorf(v.at(i), format, a...)
		return nil
	}
	const form = "FUNC(TOPIC) OP VALUE, like lost(acks1) == 0"

	e := &Expr{Pos: v.at(0)}
	skip()
	e.Pos = v.at(i)
	fstart := i
	e.Func = word()
	if e.Func == "" {
		return fail("expected an expression %s", form)
	}
	known := false
	for _, f := range ExprFuncs {
		known = known || f.Name == e.Func
	}
	if !known {
		i = fstart
		return fail("unknown function %q%s; use one of: %s", e.Func, didYouMean(e.Func, funcNames()), strings.Join(funcNames(), ", "))
	}
	skip()
	if i >= len(s) || s[i] != '(' {
		return fail("expected \"(\" after %s: %s", e.Func, form)
	}
	i++
	skip()
	tstart := i
	for i < len(s) && s[i] != ')' && s[i] != ' ' {
		i++
	}
	e.Topic, e.topicPos = s[tstart:i], v.at(tstart)
	if msg := topicError(e.Topic); msg != "" {
		i = tstart
		return fail("%s", msg)
	}
	skip()
	if i >= len(s) || s[i] != ')' {
		return fail("expected \")\" after the topic: %s", form)
	}
	i++
	skip()
	ostart := i
	for i < len(s) && strings.IndexByte("=!<>", s[i]) >= 0 {
		i++
	}
	e.Op = s[ostart:i]
	switch e.Op {
	case "==", "!=", "<", "<=", ">", ">=":
	case "=", "=>", "=<":
		i = ostart
		fix := map[string]string{"=": "==", "=>": ">=", "=<": "<="}[e.Op]
		return fail("expected a comparison: write %s instead of %s", fix, e.Op)
	default:
		i = ostart
		return fail("expected a comparison (%s) after %s(%s)", strings.Join(ExprOps, ", "), e.Func, e.Topic)
	}
	skip()
	vstart := i
	if i < len(s) && s[i] == '{' {
		for i < len(s) && s[i] != '}' {
			i++
		}
		if i < len(s) {
			i++
		}
	} else {
		for i < len(s) && s[i] != ' ' {
			i++
		}
	}
	e.Value = s[vstart:i]
	vpos := v.at(vstart)
	skip()
	if i < len(s) {
		return fail("unexpected %q after the expression", s[i:])
	}
	if e.Value == "" {
		return fail("expected a value after %s", e.Op)
	}
	if strings.HasPrefix(e.Value, "{") {
		m := results.FindMeasure(e.Func)
		switch {
		case m.IDs == nil:
			c.errorf(vpos, "%s(...) is a number, not a set of ids: compare it with a number", e.Func)
			return nil
		case e.Op != "==" && e.Op != "!=":
			c.errorf(v.at(ostart), "a set of ids compares with == or !=, not %s", e.Op)
			return nil
		}
		set, err := results.ParseIDSet(e.Value)
		if err != nil {
			c.errorf(vpos, "bad set %q: %v", e.Value, err)
			return nil
		}
		e.Set = set
		return e
	}
	if e.IsDuration() {
		d, err := time.ParseDuration(e.Value)
		if err != nil || d < 0 {
			c.errorf(vpos, "bad value %q: %s(...) is a latency, compare it with a duration like 500ms or 60s", e.Value, e.Func)
			return nil
		}
		e.Want = int64(d)
	} else {
		n, err := strconv.ParseInt(e.Value, 10, 64)
		if err != nil || n < 0 {
			c.errorf(vpos, "bad value %q: %s(...) counts messages, compare it with a whole number", e.Value, e.Func)
			return nil
		}
		e.Want = n
	}
	return e
}

// IsGroup reports whether the function measures a consumer group, so that
// its argument is a group and not a topic.
func (e *Expr) IsGroup() bool {
	m := results.FindMeasure(e.Func)
	return m != nil && m.Group
}
