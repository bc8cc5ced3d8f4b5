package main

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// claim is one number the prose states about the cited runs, in the
// marker's small language (see doc.go):
//
//	runs=5                        the cited directories hold 5 runs
//	held=5                        in 5 of them every expectation held
//	runs(lost(plast)==1000)=5     in 5 of them lost(plast) was 1000
//	lost(acks1)=10 per run        every run lost 10
//	acked(t)+failed(t)=200 per run  measures of one kind summed per run
//	duplicates(acksall)=40 total  summed over the runs
//	lost(acks1)=10,10,20,20       run by run, directories in the order cited
//	failed(retries3)=121..155     the smallest and the largest run
//	unapplied(greedy)={m-004..m-010} per run
//	max(idem)=15.0s..19.3s        a latency, to the precision written
//	gap(fault(start k2), log(k2: unfenced))=2.0s..12.0s   a time between two things (timing.go)
//	spell(noidem: [1])=7.2s..11.7s  how long an ISR held (timing.go)
//	config(java: request.timeout.ms)=30s  a client setting in force (config.go)
//	offset(acks1: m-020)=19 per run  where a message was acknowledged (offset.go)
//	elections(plast)=clean per run  how a topic's leaders were elected (elections.go)
//	feature(eligible.leader.replicas.version)=1  a finalized feature level (config.go)
//	bound(runs_lost(t))=0%..52.7%  a rate's 95% interval over the runs (bound.go)
//
// The measures are results.Measures, the functions of `expect`: a claim
// means what the same expression means in a runbook.
type claim struct {
	Text string // as written

	Kind  string // "runs", "held", "count" (runs(...)), "log" (runs(log(...))), "order", "gap", "spell" or "measure"
	Terms []term // of a "measure": summed run by run
	Cond  *cond  // of a "count": which runs to count
	// Node and Line are a "log" claim's: runs in which Node logged a
	// line holding Line (among the broker lines the run kept).
	Node, Line string
	// Before and After are an "order" claim's: runs in which Before
	// happened and After after it.
	Before, After event

	Op   string // ==, !=, <, <=, >, >=
	Want []int64
	// Tol is, for a latency, half the last digit written of each value
	// of Want (19.3s: 50ms): a measured latency equals a written one
	// when it rounds to it.
	Tol   []int64
	Range bool     // Want is [smallest, largest] over the runs
	Set   []string // an id set, compared run by run; nil when not a set
	Scope string   // "per run", "total", "list" or "" (runs, held, count)
}

// term is one measure of a topic or group, as expect writes it: lost(acks1).
type term struct {
	Measure *results.Measure
	Label   string
}

func (t term) String() string { return t.Measure.Name + "(" + t.Label + ")" }

// cond is the comparison inside runs(...): a measure of one run against a
// number, as an expect expression.
type cond struct {
	term
	Op   string
	Want int64
}

var (
	claimRe = regexp.MustCompile(`^(runs\(.*\)|runs|held|gap\(.*\)|spell\(.*\)|config\([^()]*\)|feature\([^()]*\)|offset\([^()]*\)|elections\([^()]*\)|bound\(.*\)|[a-z_0-9]+\([^()]*\)(?:\s*\+\s*[a-z_0-9]+\([^()]*\))*)\s*(==|!=|<=|>=|<|>|=)\s*(\{[^{}]*\}|` + num + `\.\.` + num + `|` + num + `(?:\s*,\s*` + num + `)*|[0-9.]+%\.\.[0-9.]+%|[A-Za-z0-9_.-]+)\s*(per run|total)?$`)
	logRe   = regexp.MustCompile(`^runs\(log\(\s*(k\d+)\s*:\s*(.+?)\)\)$`)
	condRe  = regexp.MustCompile(`^runs\(\s*([a-z_0-9]+)\(([^()]*)\)\s*(==|!=|<=|>=|<|>|=)\s*(\d+)\s*\)$`)
	callRe  = regexp.MustCompile(`^([a-z_0-9]+)\(\s*([^()\s]+)\s*\)$`)
)

// num is a value of a claim: a count, or a latency with its unit
// (19.3s, 120ms).
const num = `\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h)?`

const claimForms = "write runs=N, held=N, runs(lost(t)==N)=N, or a measure such as lost(t)=N per run, lost(t)=N total, lost(t)=A,B,C, lost(t)=A..B or lost(t)={m-001..m-010} per run"

// forms are the claims of a kind of their own, each read by its parse
// function (both sides) and checked by its check (claim.check, or the
// loader's for the ones that read provenance).
var forms = []struct {
	prefix string
	parse  func(c *claim, lhs, rhs string) error
}{
	{"offset(", parseOffset},
	{"elections(", parseElections},
	{"bound(", parseBound},
	{"feature(", parseFeature},
	{"config(", parseConfig},
	{"gap(", parseTiming},
	{"spell(", parseTiming},
}

// parseClaim reads one claim of a marker.
func parseClaim(s string) (claim, error) {
	c := claim{Text: s}
	g := claimRe.FindStringSubmatch(s)
	if g == nil {
		return c, fmt.Errorf("cannot read claim %q: %s", s, claimForms)
	}
	lhs, rhs := g[1], g[3]
	c.Op, c.Scope = normOp(g[2]), g[4]
	for _, f := range forms {
		if strings.HasPrefix(lhs, f.prefix) {
			if err := f.parse(&c, lhs, rhs); err != nil {
				return c, fmt.Errorf("claim %q: %w", s, err)
			}
			return c, nil
		}
	}
	switch {
	case lhs == "runs" || lhs == "held":
		c.Kind = lhs
	case strings.HasPrefix(lhs, "runs(") && condRe.FindStringSubmatch(lhs) == nil && orderRe.MatchString(lhs):
		og := orderRe.FindStringSubmatch(lhs)
		var err error
		if c.Before, err = parseEvent(og[1]); err != nil {
			return c, err
		}
		if c.After, err = parseEvent(og[2]); err != nil {
			return c, err
		}
		c.Kind = "order"
	case strings.HasPrefix(lhs, "runs(log("):
		lg := logRe.FindStringSubmatch(lhs)
		if lg == nil {
			return c, fmt.Errorf("cannot read %q: count runs with a log line as runs(log(k1: Shrinking ISR))", lhs)
		}
		c.Kind, c.Node, c.Line = "log", lg[1], strings.TrimSpace(lg[2])
	case strings.HasPrefix(lhs, "runs("):
		cg := condRe.FindStringSubmatch(lhs)
		if cg == nil {
			return c, fmt.Errorf("cannot read %q: count runs as runs(lost(t)==N)", lhs)
		}
		m, err := findMeasure(cg[1])
		if err != nil {
			return c, err
		}
		want, _ := strconv.ParseInt(cg[4], 10, 64)
		c.Kind, c.Cond = "count", &cond{term: term{m, cg[2]}, Op: normOp(cg[3]), Want: want}
	default:
		c.Kind = "measure"
		for _, call := range strings.Split(lhs, "+") {
			t, err := parseTerm(strings.TrimSpace(call))
			if err != nil {
				return c, err
			}
			if len(c.Terms) > 0 && (t.Measure.Group != c.Terms[0].Measure.Group || t.Measure.Duration != c.Terms[0].Measure.Duration) {
				return c, fmt.Errorf("cannot add %s to %s: a sum takes measures of one kind", t, c.Terms[0])
			}
			c.Terms = append(c.Terms, t)
		}
	}
	if err := c.setValue(rhs); err != nil {
		return c, fmt.Errorf("claim %q: %w", s, err)
	}
	return c, nil
}

// parseTerm reads one measure, name(topic).
func parseTerm(s string) (term, error) {
	g := callRe.FindStringSubmatch(s)
	if g == nil {
		return term{}, fmt.Errorf("cannot read %q: a measure is written name(topic), like lost(acks1)", s)
	}
	m, err := findMeasure(g[1])
	if err != nil {
		return term{}, err
	}
	return term{m, g[2]}, nil
}

// setValue reads the right side and checks that it fits the left side and
// the scope.
func (c *claim) setValue(rhs string) error {
	if c.Kind != "measure" {
		if c.Scope != "" || strings.ContainsAny(rhs, "{,.") || !isInt(rhs) {
			return fmt.Errorf("a count of runs is one number, without per run or total")
		}
		n, _ := strconv.ParseInt(rhs, 10, 64)
		c.Want, c.Tol = []int64{n}, []int64{0}
		return nil
	}
	first := c.Terms[0].Measure
	add := func(v string) error {
		n, tol, err := parseNum(strings.TrimSpace(v), first.Duration)
		if err != nil {
			return fmt.Errorf("%s: %w", c.lhs(), err)
		}
		c.Want, c.Tol = append(c.Want, n), append(c.Tol, tol)
		return nil
	}
	switch {
	case strings.HasPrefix(rhs, "{"):
		if len(c.Terms) > 1 || first.IDs == nil {
			return fmt.Errorf("%s counts no ids, so it does not compare with a set", c.lhs())
		}
		ids, err := results.ParseIDSet(rhs)
		if err != nil {
			return err
		}
		if c.Op != "==" && c.Op != "!=" {
			return fmt.Errorf("a set compares with = or != only")
		}
		if c.Scope != "per run" {
			return fmt.Errorf("say per run after a set: the ids are compared run by run")
		}
		c.Set = ids
	case strings.Contains(rhs, ".."):
		a, b, _ := strings.Cut(rhs, "..")
		if c.Op != "==" || c.Scope != "" {
			return fmt.Errorf("a range A..B states the smallest and largest run: write it with = and no scope")
		}
		if err := add(a); err != nil {
			return err
		}
		if err := add(b); err != nil {
			return err
		}
		c.Range = true
	case strings.Contains(rhs, ","):
		if c.Op != "==" || c.Scope != "" {
			return fmt.Errorf("a list A,B,C states each run in order: write it with = and no scope")
		}
		for _, f := range strings.Split(rhs, ",") {
			if err := add(f); err != nil {
				return err
			}
		}
		c.Scope = "list"
	default:
		if c.Scope == "" {
			return fmt.Errorf("say per run or total after %s", rhs)
		}
		if err := add(rhs); err != nil {
			return err
		}
	}
	return nil
}

// units are the units a latency is written in, by their size.
var units = map[string]int64{"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}

// parseNum reads one value: a count, or for a latency a number with its
// unit, whose tolerance is half its last digit (19.3s: 50ms; 120ms:
// 0.5ms), since the prose rounds.
func parseNum(v string, duration bool) (n, tol int64, err error) {
	i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	digits, unit := v, ""
	if i >= 0 {
		digits, unit = v[:i], v[i:]
	}
	if !duration {
		if unit != "" || !isInt(digits) {
			return 0, 0, fmt.Errorf("%q: a count is a whole number", v)
		}
		n, err := strconv.ParseInt(digits, 10, 64)
		return n, 0, err
	}
	size, ok := units[unit]
	if !ok {
		return 0, 0, fmt.Errorf("%q: a latency needs its unit (19.3s, 120ms)", v)
	}
	f, err := strconv.ParseFloat(digits, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("%q: %w", v, err)
	}
	decimals := 0
	if _, frac, ok := strings.Cut(digits, "."); ok {
		decimals = len(frac)
	}
	step := float64(size) / math.Pow10(decimals)
	return int64(math.Round(f * float64(size))), int64(step / 2), nil
}

// isInt reports whether s is digits only.
func isInt(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// lhs writes the claim's summed measures: acked(t)+failed(t).
func (c claim) lhs() string {
	s := make([]string, len(c.Terms))
	for i, t := range c.Terms {
		s[i] = t.String()
	}
	return strings.Join(s, "+")
}

func normOp(op string) string {
	if op == "=" {
		return "=="
	}
	return op
}

func findMeasure(name string) (*results.Measure, error) {
	if m := results.FindMeasure(name); m != nil {
		return m, nil
	}
	var names []string
	for _, m := range results.Measures {
		names = append(names, m.Name)
	}
	return nil, fmt.Errorf("unknown measure %s: use one of %s", name, strings.Join(names, ", "))
}

// citedRun is one run of a cited directory.
type citedRun struct {
	Dir string
	Run results.Run
}

// check compares the claim with the runs; it returns what the evidence
// says and whether that matches. An error means the claim cannot be
// evaluated on these runs (a topic they do not have).
func (c claim) check(runs []citedRun) (got string, ok bool, err error) {
	switch c.Kind {
	case "runs":
		n := int64(len(runs))
		return fmt.Sprint(n), compare(n, c.Op, c.Want[0]), nil
	case "held":
		var n int64
		for _, r := range runs {
			if r.Run.Held() {
				n++
			}
		}
		return fmt.Sprint(n), compare(n, c.Op, c.Want[0]), nil
	case "log":
		var n int64
		var with []string
		for _, r := range runs {
			if slices.ContainsFunc(r.Run.Logs, func(l results.LogLine) bool { return l.Node == c.Node && strings.Contains(l.Text, c.Line) }) {
				n++
				with = append(with, fmt.Sprintf("%s run %d", r.Dir, r.Run.Number))
			}
		}
		return fmt.Sprintf("%d (%s)", n, strings.Join(with, ", ")), compare(n, c.Op, c.Want[0]), nil
	case "order":
		var n int64
		var shown []string
		for _, r := range runs {
			a, okA := c.Before.when(r.Run)
			b, okB := c.After.when(r.Run)
			switch {
			case !okA || !okB:
				shown = append(shown, "–")
			case a.Before(b):
				n++
				shown = append(shown, "+"+b.Sub(a).Round(time.Millisecond).String())
			default:
				shown = append(shown, "-"+a.Sub(b).Round(time.Millisecond).String())
			}
		}
		return fmt.Sprintf("%d (%s after %s, run by run: %s)", n, c.After, c.Before, strings.Join(shown, ", ")), compare(n, c.Op, c.Want[0]), nil
	case "gap", "spell":
		return c.checkTiming(runs)
	case "offset":
		return c.checkOffset(runs)
	case "elections":
		return c.checkElections(runs)
	case "bound":
		return c.checkBound(runs)
	case "count":
		vals, err := values([]term{c.Cond.term}, runs)
		if err != nil {
			return "", false, err
		}
		var n int64
		for _, v := range vals {
			if compare(v, c.Cond.Op, c.Cond.Want) {
				n++
			}
		}
		return fmt.Sprintf("%d (%s run by run: %s)", n, c.Cond.term, showValues(c.Cond.Measure, vals)), compare(n, c.Op, c.Want[0]), nil
	}
	if c.Set != nil {
		return c.checkSet(runs)
	}
	vals, err := values(c.Terms, runs)
	if err != nil {
		return "", false, err
	}
	m := c.Terms[0].Measure
	shown := showValues(m, vals)
	switch {
	case c.Range:
		lo, hi := slices.Min(vals), slices.Max(vals)
		return fmt.Sprintf("%s..%s (%s)", m.Show(lo), m.Show(hi), shown), near(lo, c.Want[0], c.Tol[0]) && near(hi, c.Want[1], c.Tol[1]), nil
	case c.Scope == "list":
		ok := len(vals) == len(c.Want)
		for i := 0; ok && i < len(vals); i++ {
			ok = near(vals[i], c.Want[i], c.Tol[i])
		}
		return shown, ok, nil
	case c.Scope == "total":
		var sum int64
		for _, v := range vals {
			sum += v
		}
		return fmt.Sprintf("%s (%s)", m.Show(sum), shown), compareTol(sum, c.Op, c.Want[0], c.Tol[0]), nil
	}
	for _, v := range vals {
		if !compareTol(v, c.Op, c.Want[0], c.Tol[0]) {
			return shown, false, nil
		}
	}
	return shown, true, nil
}

// checkSet compares the ids the measure counts, run by run, with the set.
func (c claim) checkSet(runs []citedRun) (string, bool, error) {
	var shown []string
	ok := true
	t := c.Terms[0]
	for _, r := range runs {
		ids, has := t.Measure.IDs(r.Run, t.Label)
		if !has || !hasLabel(r.Run, t) {
			return "", false, noValue(t, r)
		}
		shown = append(shown, results.FormatIDSet(ids))
		if slices.Equal(ids, c.Set) != (c.Op == "==") {
			ok = false
		}
	}
	return compact(shown), ok, nil
}

// values evaluates the sum of the terms on every run, in order.
func values(terms []term, runs []citedRun) ([]int64, error) {
	var out []int64
	for _, r := range runs {
		var sum int64
		for _, t := range terms {
			v, ok := t.Measure.Of(r.Run, t.Label)
			if !ok || !hasLabel(r.Run, t) {
				return nil, noValue(t, r)
			}
			sum += v
		}
		out = append(out, sum)
	}
	return out, nil
}

// hasLabel reports whether the run knows label as a topic (or, for group
// measures, a consumer group): a misspelt topic must not read as zero.
func hasLabel(r results.Run, t term) bool {
	if t.Measure.Group {
		_, ok := r.Consumer(t.Label)
		return ok
	}
	for _, tp := range r.Topics {
		if tp.Label == t.Label {
			return true
		}
	}
	return false
}

func noValue(t term, r citedRun) error {
	return fmt.Errorf("%s has no value in run %d of %s: no such topic or group there, or nothing read", t, r.Run.Number, r.Dir)
}

// near reports whether got rounds to want, which was written to within
// tol.
func near(got, want, tol int64) bool { return got >= want-tol && got <= want+tol }

// compareTol is compare for a value written to within tol: equal when it
// rounds to it, else compared as written.
func compareTol(got int64, op string, want, tol int64) bool {
	switch op {
	case "==":
		return near(got, want, tol)
	case "!=":
		return !near(got, want, tol)
	}
	return compare(got, op, want)
}

func compare(got int64, op string, want int64) bool {
	switch op {
	case "==":
		return got == want
	case "!=":
		return got != want
	case "<":
		return got < want
	case "<=":
		return got <= want
	case ">":
		return got > want
	case ">=":
		return got >= want
	}
	return false
}

// showValues writes per-run values of m as the reports do: "10 ×4" when
// all agree, else "10, 10, 20, 20".
func showValues(m *results.Measure, vals []int64) string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = m.Show(v)
	}
	return compact(s)
}

func compact(s []string) string {
	if len(s) > 1 && len(slices.Compact(slices.Clone(s))) == 1 {
		return fmt.Sprintf("%s ×%d", s[0], len(s))
	}
	return strings.Join(s, ", ")
}
