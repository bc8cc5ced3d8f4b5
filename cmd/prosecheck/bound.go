package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/kafkabook/kafkabook/results"
)

// A bound claim states the 95% (Clopper–Pearson) interval of a rate over
// all the cited runs together, as the evidence and the reports print it
// (results.BoundOf), to the precision written:
//
//	bound(runs_lost(load))=0%..19.3%     no run of 14 lost: at most 19.3%
//	bound(runs_lost(cut))=79.4%..100%    every run of 14 lost
//
// The rates are expect's (results.RateMeasures): runs_lost, lost_rate.

var boundRe = regexp.MustCompile(`^bound\(\s*([a-z_]+)\(\s*([^()\s]+)\s*\)\s*\)$`)

// parseBound reads a bound claim's two sides into c.
func parseBound(c *claim, lhs, rhs string) error {
	g := boundRe.FindStringSubmatch(lhs)
	if g == nil || results.FindRateMeasure(g[1]) == nil {
		return fmt.Errorf("cannot read %q: write bound(runs_lost(t))=0%%..19.3%% (a rate: runs_lost or lost_rate)", lhs)
	}
	lo, hi, ok := strings.Cut(rhs, "..")
	if !ok || c.Op != "==" || c.Scope != "" {
		return fmt.Errorf("a bound is written as its interval, bound(runs_lost(t))=0%%..19.3%%")
	}
	c.Kind, c.Node, c.Line = "bound", g[1], g[2]
	for _, v := range []string{lo, hi} {
		digits, ok := strings.CutSuffix(strings.TrimSpace(v), "%")
		f, err := strconv.ParseFloat(digits, 64)
		if !ok || err != nil {
			return fmt.Errorf("%q: a bound's end is a percentage, as 19.3%%", v)
		}
		decimals := 0
		if _, frac, ok := strings.Cut(digits, "."); ok {
			decimals = len(frac)
		}
		// Kept in millionths of a percent, with half the last digit
		// written as the tolerance.
		c.Want = append(c.Want, int64(math.Round(f*1e6)))
		c.Tol = append(c.Tol, int64(0.5*1e6/math.Pow10(decimals)))
	}
	return nil
}

// checkBound computes the rate's interval over all the cited runs.
func (c claim) checkBound(runs []citedRun) (string, bool, error) {
	rate := results.FindRateMeasure(c.Node)
	all := make([]results.Run, len(runs))
	for i, r := range runs {
		all[i] = r.Run
	}
	k, n := rate.Count(all, c.Line)
	if n == 0 {
		return "", false, fmt.Errorf("%s: no cited run judged %s", c.Text, c.Line)
	}
	b := results.BoundOf(k, n)
	lo, hi := int64(math.Round(b.Lo*100*1e6)), int64(math.Round(b.Hi*100*1e6))
	got := fmt.Sprintf("%s..%s (%d of %d)", results.Percent(b.Lo), results.Percent(b.Hi), k, n)
	return got, near(lo, c.Want[0], c.Tol[0]) && near(hi, c.Want[1], c.Tol[1]), nil
}
