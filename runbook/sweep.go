package runbook

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A sweep runs a runbook once per combination of settings: the front
// matter's
//
//	params:
//	  acks: all
//	  mis: 2
//	sweep:
//	  acks: [1, all]
//	  mis: [1, 2]
//
// makes four runbooks, acks=1 mis=1 to acks=all mis=2, each a parameter
// setting as -p would give it, with evidence of its own (the runbook's
// name with the combination, producer-acks.acks-1.mis-2: a series of its
// own in the site). A sweep's parameters are the runbook's params, so any
// value a step takes from ${name} can be swept: acks, min.insync.replicas,
// the replication factor, a client property. The client itself is swept
// by client:, as ever.

// MaxCombinations is the most combinations a sweep may make: each is a
// series of runs on every release and client.
const MaxCombinations = 64

// SweepParam is one swept parameter with its values, in the order written.
type SweepParam struct {
	Name   string
	Values []string
	Pos    Pos
}

// sweepValueRE is what a swept value may be: it names a directory.
var sweepValueRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._]*$`)

// sweep decodes the sweep: key, a mapping of parameter names to lists of
// values.
func (p *metaParser) sweep(v *yaml.Node) {
	if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
		p.errorf(v, "sweep must map parameters to lists of values, as sweep: {acks: [1, all]}")
		return
	}
	n := 1
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if k.Kind != yaml.ScalarNode || !validParam(k.Value) || k.Value == "run" {
			p.errorf(k, "sweep: %q is no parameter name: use letters, digits, _ . -", k.Value)
			continue
		}
		if slices.ContainsFunc(p.m.Sweep, func(s SweepParam) bool { return s.Name == k.Value }) {
			p.errorf(k, "sweep: %q given twice", k.Value)
			continue
		}
		if val.Kind != yaml.SequenceNode || len(val.Content) < 2 {
			p.errorf(val, "sweep: %s needs a list of two values or more, as [1, all]", k.Value)
			continue
		}
		sp := SweepParam{Name: k.Value, Pos: p.at(k)}
		for _, it := range val.Content {
			switch {
			case it.Kind != yaml.ScalarNode || !sweepValueRE.MatchString(it.Value):
				p.errorf(it, "sweep: %s: %q: a swept value is letters, digits, . and _ (it names the combination's evidence)", k.Value, it.Value)
			case slices.Contains(sp.Values, it.Value):
				p.errorf(it, "sweep: %s: %q given twice", k.Value, it.Value)
			default:
				sp.Values = append(sp.Values, it.Value)
			}
		}
		n *= max(len(sp.Values), 1)
		p.m.Sweep = append(p.m.Sweep, sp)
	}
	if n > MaxCombinations {
		p.errorf(v, "sweep: %d combinations: at most %d (each is a series of runs on every release and client)", n, MaxCombinations)
	}
}

// Combination is one setting of every swept parameter, in the sweep's
// order.
type Combination []Setting

// Setting is one parameter's value.
type Setting struct{ Name, Value string }

// Name is the combination as the evidence names it: acks-1.mis-2.
func (c Combination) Name() string {
	parts := make([]string, len(c))
	for i, s := range c {
		parts[i] = s.Name + "-" + s.Value
	}
	return strings.Join(parts, ".")
}

// String is the combination as a reader writes it: acks=1 mis=2.
func (c Combination) String() string {
	parts := make([]string, len(c))
	for i, s := range c {
		parts[i] = s.Name + "=" + s.Value
	}
	return strings.Join(parts, " ")
}

// Combinations lists every combination of a sweep, the first parameter
// varying slowest; nil for no sweep.
func Combinations(sweep []SweepParam) []Combination {
	if len(sweep) == 0 {
		return nil
	}
	out := []Combination{{}}
	for _, p := range sweep {
		var next []Combination
		for _, c := range out {
			for _, v := range p.Values {
				next = append(next, append(slices.Clone(c), Setting{p.Name, v}))
			}
		}
		out = next
	}
	return out
}

// applySweep sets the parameters of the combination ov.Sweep names (run
// picks one at a time), or, with none, the first combination, so that
// check sees a runbook as it will run.
func applySweep(d *Doc, ov Overrides, declared map[string]bool) ErrorList {
	var errs ErrorList
	errorf := func(pos Pos, format string, args ...any) {
		errs = append(errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
	}
	for _, sp := range d.Meta.Sweep {
		if !declared[sp.Name] {
			errorf(sp.Pos, "sweep: %s is not under params: give it its default value there", sp.Name)
		}
		if _, ok := ov.Params[sp.Name]; ok {
			errorf(Pos{File: d.Path}, "-p %s=...: %s is swept (sweep:): drop -p, or take it out of the sweep", sp.Name, sp.Name)
		}
	}
	if len(d.Meta.Sweep) == 0 {
		if ov.Sweep != nil {
			errorf(Pos{File: d.Path}, "the runbook has no sweep: to pick %s from", ov.Sweep)
		}
		return errs
	}
	c := ov.Sweep
	if c == nil {
		c = Combinations(d.Meta.Sweep)[0]
	}
	if !slices.ContainsFunc(Combinations(d.Meta.Sweep), func(x Combination) bool { return slices.Equal(x, c) }) {
		errorf(Pos{File: d.Path}, "%s is no combination of the runbook's sweep:", c)
		return errs
	}
	for _, s := range c {
		d.Meta.Params[s.Name] = s.Value
	}
	d.Combination = c
	return errs
}

// Name is the name the runbook's evidence goes under: the file's name,
// with the combination of a sweep after it (producer-acks.acks-1.mis-2).
func (d *Doc) Name() string {
	if len(d.Combination) == 0 {
		return d.Base()
	}
	return d.Base() + "." + d.Combination.Name()
}

// Base is the runbook file's name without its extension: a sweep's name.
func (d *Doc) Base() string {
	base := d.Path[strings.LastIndex(d.Path, "/")+1:]
	if i := strings.LastIndex(base, "."); i > 0 {
		base = base[:i]
	}
	return base
}

// SweepName is the name of the sweep the Doc is a combination of (Base);
// "" without a sweep.
func (d *Doc) SweepName() string {
	if len(d.Combination) == 0 {
		return ""
	}
	return d.Base()
}
