package runbook

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
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
	// Rate and Confidence are a rate function's (runs_lost, lost_rate):
	// the rate Value states (5% is 0.05) and the confidence its bound
	// over the runs so far must reach (at 95%: 0.95); Confidence is 0
	// for every other function.
	Rate, Confidence float64
	Pos              Pos // of the function name

	topicPos Pos
}

// ExprFuncs are the functions of expect expressions with what they
// measure, in the order of the reference: results.Measures, the one table.
var ExprFuncs = func() []ExprFunc {
	var out []ExprFunc
	for _, m := range results.Measures {
		out = append(out, ExprFunc{Name: m.Name, Summary: m.Summary, Group: m.Group, IDs: m.IDs != nil})
	}
	for _, m := range results.RateMeasures {
		out = append(out, ExprFunc{Name: m.Name, Summary: m.Summary, Rate: true})
	}
	return out
}()

// ExprFunc is a function of expect expressions, for the checker and the
// reference.
type ExprFunc struct {
	Name, Summary string
	Group         bool // takes a consumer group, not a topic
	IDs           bool // counts ids, so it also compares with a set of ids
	// Rate marks a function over every run so far, compared with a rate
	// at a confidence: runs_lost(t) < 5% at 95%.
	Rate bool
}

// IsRate reports whether the function is a rate over the runs so far,
// compared at a confidence.
func (e *Expr) IsRate() bool { return results.FindRateMeasure(e.Func) != nil }

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

// String formats e canonically: "lost(acks1) > 0", "runs_lost(t) < 5% at
// 95%".
func (e *Expr) String() string {
	s := fmt.Sprintf("%s(%s) %s %s", e.Func, e.Topic, e.Op, e.Value)
	if e.Confidence > 0 {
		s += " at " + strconv.FormatFloat(e.Confidence*100, 'g', 4, 64) + "%"
	}
	return s
}

func funcNames() []string {
	var names []string
	for _, f := range ExprFuncs {
		names = append(names, f.Name)
	}
	return names
}

// exprForm is the shape of an expression, for errors that show it.
const exprForm = "FUNC(TOPIC) OP VALUE, like lost(acks1) == 0"

// expr parses the arguments of an expect step, joined by single blanks.
// It reports at most one error, at the first thing it cannot read.
func (c *checker) expr(args []value) *Expr {
	x := &exprScanner{c: c, v: joinValues(args)}
	x.s = x.v.text
	x.skip()
	e := &Expr{Pos: x.v.at(x.i)}
	if !x.call(e) {
		return nil
	}
	opPos, ok := x.op(e)
	if !ok {
		return nil
	}
	vpos, ok := x.value(e)
	if !ok {
		return nil
	}
	return c.exprWant(e, vpos, opPos)
}

// joinValues joins the values with single blanks, keeping each byte's file
// column, so that an expression split at blanks by the lexer reads as one
// text whose errors still point into the file.
func joinValues(args []value) value {
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
	return v
}

// exprScanner reads an expression's text s (v's, with columns) from byte i
// on, so that each error points at the byte the scanner stopped at.
type exprScanner struct {
	c *checker
	v value
	s string
	i int
}

// skip moves past blanks.
func (x *exprScanner) skip() {
	for x.i < len(x.s) && x.s[x.i] == ' ' {
		x.i++
	}
}

// word reads a function name: letters, digits and underscores.
func (x *exprScanner) word() string {
	j := x.i
	for x.i < len(x.s) && (x.s[x.i] >= 'a' && x.s[x.i] <= 'z' || x.s[x.i] >= '0' && x.s[x.i] <= '9' || x.s[x.i] >= 'A' && x.s[x.i] <= 'Z' || x.s[x.i] == '_') {
		x.i++
	}
	return x.s[j:x.i]
}

// fail reports an error at the scanner's byte and returns false, for the
// reading methods to return.
func (x *exprScanner) fail(format string, a ...any) bool {
	x.c.errorf(x.v.at(x.i), format, a...)
	return false
}

// call reads FUNC(TOPIC) into e: a known function and a valid topic name.
func (x *exprScanner) call(e *Expr) bool {
	fstart := x.i
	e.Func = x.word()
	if e.Func == "" {
		return x.fail("expected an expression %s", exprForm)
	}
	known := false
	for _, f := range ExprFuncs {
		known = known || f.Name == e.Func
	}
	if !known {
		x.i = fstart
		return x.fail("unknown function %q%s; use one of: %s", e.Func, didYouMean(e.Func, funcNames()), strings.Join(funcNames(), ", "))
	}
	x.skip()
	if x.i >= len(x.s) || x.s[x.i] != '(' {
		return x.fail("expected \"(\" after %s: %s", e.Func, exprForm)
	}
	x.i++
	x.skip()
	tstart := x.i
	for x.i < len(x.s) && x.s[x.i] != ')' && x.s[x.i] != ' ' {
		x.i++
	}
	e.Topic, e.topicPos = x.s[tstart:x.i], x.v.at(tstart)
	if msg := topicError(e.Topic); msg != "" {
		x.i = tstart
		return x.fail("%s", msg)
	}
	x.skip()
	if x.i >= len(x.s) || x.s[x.i] != ')' {
		return x.fail("expected \")\" after the topic: %s", exprForm)
	}
	x.i++
	return true
}

// op reads the comparison into e and returns where it stands, for a later
// error about an operator that does not fit the value. A common slip
// (=, =>, =<) gets the operator meant.
func (x *exprScanner) op(e *Expr) (Pos, bool) {
	x.skip()
	ostart := x.i
	for x.i < len(x.s) && strings.IndexByte("=!<>", x.s[x.i]) >= 0 {
		x.i++
	}
	e.Op = x.s[ostart:x.i]
	switch e.Op {
	case "==", "!=", "<", "<=", ">", ">=":
	case "=", "=>", "=<":
		x.i = ostart
		fix := map[string]string{"=": "==", "=>": ">=", "=<": "<="}[e.Op]
		return Pos{}, x.fail("expected a comparison: write %s instead of %s", fix, e.Op)
	default:
		x.i = ostart
		return Pos{}, x.fail("expected a comparison (%s) after %s(%s)", strings.Join(ExprOps, ", "), e.Func, e.Topic)
	}
	return x.v.at(ostart), true
}

// value reads the value, a word or a {set} that may hold blanks, into
// e.Value as written, and returns where it stands. Nothing may follow it.
func (x *exprScanner) value(e *Expr) (Pos, bool) {
	x.skip()
	vstart := x.i
	if x.i < len(x.s) && x.s[x.i] == '{' {
		for x.i < len(x.s) && x.s[x.i] != '}' {
			x.i++
		}
		if x.i < len(x.s) {
			x.i++
		}
	} else {
		for x.i < len(x.s) && x.s[x.i] != ' ' {
			x.i++
		}
	}
	e.Value = x.s[vstart:x.i]
	vpos := x.v.at(vstart)
	x.skip()
	if e.Value == "" {
		return vpos, x.fail("expected a value after %s", e.Op)
	}
	if strings.HasPrefix(x.s[x.i:], "at ") {
		x.i += len("at ")
		x.skip()
		cstart := x.i
		for x.i < len(x.s) && x.s[x.i] != ' ' {
			x.i++
		}
		c, ok := percent(x.s[cstart:x.i])
		if !ok || c <= 0 || c >= 1 {
			x.i = cstart
			return vpos, x.fail("expected a confidence after at, like 95%%")
		}
		if !e.IsRate() {
			x.i = cstart - len("at ")
			return vpos, x.fail("a confidence (at %s) is for the rates over runs (%s): %s(...) is judged in each run", x.s[cstart:], strings.Join(rateNames(), ", "), e.Func)
		}
		e.Confidence = c
		x.skip()
	}
	if x.i < len(x.s) {
		return vpos, x.fail("unexpected %q after the expression", x.s[x.i:])
	}
	if e.IsRate() && e.Confidence == 0 {
		return vpos, x.fail("%s(...) is a rate over the runs so far: say at which confidence, like %s(%s) %s %s at 95%%", e.Func, e.Func, e.Topic, e.Op, e.Value)
	}
	return vpos, true
}

// percent reads 95% as 0.95.
func percent(s string) (float64, bool) {
	n, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(n, 64)
	return f / 100, err == nil
}

// rateNames are the rate functions' names.
func rateNames() []string {
	var out []string
	for _, m := range results.RateMeasures {
		out = append(out, m.Name)
	}
	return out
}

// exprWant converts e.Value, at vpos, into what the function's measure
// compares with: a set of ids (e.Set), a duration or a count (e.Want). A
// set compares only with == or !=, and an error about that points at the
// operator, at opPos. It returns e, or nil after reporting a bad value.
func (c *checker) exprWant(e *Expr, vpos, opPos Pos) *Expr {
	if e.IsRate() {
		// A rate: 5%, or a fraction such as 1e-4; bounded over runs, so
		// only an inequality can be decided.
		r, ok := percent(e.Value)
		if !ok {
			f, err := strconv.ParseFloat(e.Value, 64)
			r, ok = f, err == nil
		}
		switch {
		case !ok || r < 0 || r > 1:
			c.errorf(vpos, "bad value %q: %s(...) is a rate, compare it with a share like 5%% or 1e-4", e.Value, e.Func)
			return nil
		case e.Op == "==" || e.Op == "!=":
			c.errorf(opPos, "a rate over runs is bounded, never known exactly: compare it with <, <=, > or >=, not %s", e.Op)
			return nil
		}
		e.Rate = r
		return e
	}
	if strings.HasPrefix(e.Value, "{") {
		m := results.FindMeasure(e.Func)
		switch {
		case m.IDs == nil:
			c.errorf(vpos, "%s(...) is a number, not a set of ids: compare it with a number", e.Func)
			return nil
		case e.Op != "==" && e.Op != "!=":
			c.errorf(opPos, "a set of ids compares with == or !=, not %s", e.Op)
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
