package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// Timing claims state how long something took, run by run, as a range
// over the cited runs or per run, to the precision written:
//
//	gap(fault(start k2), log(k2: unfenced))=2.0s..12.0s
//	                       from the first A to the first B after it
//	spell(noidem: [1])=7.2s..11.7s
//	                       the longest time topic noidem's partition 0 had
//	                       the ISR [1] (to the run's end if it never left)
//
// A gap's things are an order claim's (order.go), and also
// isr(T: [1]) and leader(T: 2), the first time partition 0 of topic T had
// that ISR or that leader.

var (
	gapRe   = regexp.MustCompile(`^gap\(\s*([a-z]+\(.+?\))\s*,\s*([a-z]+\(.+\))\s*\)$`)
	spellRe = regexp.MustCompile(`^spell\(\s*([^:()\s]+)\s*:\s*(\[[0-9, ]*\])\s*\)$`)
)

// parseTiming reads a gap or spell claim's two sides into c.
func parseTiming(c *claim, lhs, rhs string) error {
	if err := parseTimingLHS(c, lhs); err != nil {
		return err
	}
	return c.setTiming(rhs)
}

// parseTimingLHS reads the left side of a gap or spell claim into c.
func parseTimingLHS(c *claim, lhs string) error {
	if g := gapRe.FindStringSubmatch(lhs); g != nil {
		var err error
		if c.Before, err = parseEvent(g[1]); err != nil {
			return err
		}
		if c.After, err = parseEvent(g[2]); err != nil {
			return err
		}
		c.Kind = "gap"
		return nil
	}
	if g := spellRe.FindStringSubmatch(lhs); g != nil {
		c.Kind, c.Before = "spell", event{Kind: "isr", Name: g[1], Arg: normISR(g[2])}
		return nil
	}
	return fmt.Errorf("cannot read %q: write gap(fault(start k2), log(k2: unfenced)) or spell(topic: [1])", lhs)
}

// setTiming reads a timing claim's value: a range or one value per run,
// each a duration with its unit.
func (c *claim) setTiming(rhs string) error {
	add := func(v string) error {
		n, tol, err := parseNum(strings.TrimSpace(v), true)
		if err != nil {
			return err
		}
		c.Want, c.Tol = append(c.Want, n), append(c.Tol, tol)
		return nil
	}
	if a, b, ok := strings.Cut(rhs, ".."); ok {
		if c.Op != "==" || c.Scope != "" {
			return fmt.Errorf("a range A..B states the shortest and longest run: write it with = and no scope")
		}
		c.Range = true
		if err := add(a); err != nil {
			return err
		}
		return add(b)
	}
	if c.Scope != "per run" {
		return fmt.Errorf("say per run after %s, or give a range A..B", rhs)
	}
	return add(rhs)
}

// checkTiming measures the claim in every run.
func (c claim) checkTiming(runs []citedRun) (string, bool, error) {
	var vals []int64
	var shown []string
	for _, r := range runs {
		d, ok := c.timing(r.Run)
		if !ok {
			return "", false, fmt.Errorf("%s: not in run %d of %s", c.Text, r.Run.Number, r.Dir)
		}
		vals = append(vals, int64(d))
		shown = append(shown, d.Round(time.Millisecond).String())
	}
	if c.Range {
		lo, hi := slices.Min(vals), slices.Max(vals)
		got := fmt.Sprintf("%s..%s (%s)", time.Duration(lo).Round(time.Millisecond), time.Duration(hi).Round(time.Millisecond), strings.Join(shown, ", "))
		return got, near(lo, c.Want[0], c.Tol[0]) && near(hi, c.Want[1], c.Tol[1]), nil
	}
	ok := true
	for _, v := range vals {
		ok = ok && compareTol(v, c.Op, c.Want[0], c.Tol[0])
	}
	return strings.Join(shown, ", "), ok, nil
}

// timing is the claim's duration in one run, and false when the run does
// not have it.
func (c claim) timing(r results.Run) (time.Duration, bool) {
	if c.Kind == "spell" {
		return spell(r, c.Before.Name, c.Before.Arg)
	}
	a, ok := c.Before.when(r)
	if !ok {
		return 0, false
	}
	b, ok := c.After.whenAfter(r, a)
	return b.Sub(a), ok
}

// spell is the longest time partition 0 of topic had the ISR isr.
func spell(r results.Run, topic, isr string) (time.Duration, bool) {
	var longest time.Duration
	var since time.Time
	found := false
	for _, s := range r.ISR {
		if s.Topic != topic || s.Partition != 0 {
			continue
		}
		at := formatISR(s.ISR) == isr
		switch {
		case at && since.IsZero():
			since, found = s.At, true
		case !at && !since.IsZero():
			longest, since = max(longest, s.At.Sub(since)), time.Time{}
		}
	}
	if !since.IsZero() {
		longest = max(longest, r.End.Sub(since))
	}
	return longest, found
}

func formatISR(isr []int32) string {
	s := make([]string, len(isr))
	for i, n := range isr {
		s[i] = strconv.Itoa(int(n))
	}
	return "[" + strings.Join(s, ",") + "]"
}

// normISR writes an ISR as formatISR does: [1, 2] is [1,2].
func normISR(s string) string { return strings.ReplaceAll(s, " ", "") }
