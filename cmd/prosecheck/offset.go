package main

import (
	"fmt"
	"regexp"
	"strconv"
)

// An offset claim states the offset a message was acknowledged at, as
// its topic's ledger recorded it, in every cited run:
//
//	offset(acks1: m-020)=19 per run

var offsetRe = regexp.MustCompile(`^offset\(\s*([^:()\s]+)\s*:\s*(m-\d+)\s*\)$`)

// parseOffset reads an offset claim's two sides into c.
func parseOffset(c *claim, lhs, rhs string) error {
	g := offsetRe.FindStringSubmatch(lhs)
	if g == nil {
		return fmt.Errorf("cannot read %q: write offset(topic: m-020)=19 per run", lhs)
	}
	if c.Op != "==" || c.Scope != "per run" || !isInt(rhs) {
		return fmt.Errorf("an offset is stated as offset(topic: m-020)=19 per run")
	}
	n, _ := strconv.ParseInt(rhs, 10, 64)
	c.Kind, c.Node, c.Line, c.Want, c.Tol = "offset", g[1], g[2], []int64{n}, []int64{0}
	return nil
}

// checkOffset compares the message's offset with the claim, run by run.
func (c claim) checkOffset(runs []citedRun) (string, bool, error) {
	var shown []string
	ok := true
	for _, r := range runs {
		off, found := int64(0), false
		for _, t := range r.Run.Topics {
			if t.Label != c.Node {
				continue
			}
			for _, m := range t.All() {
				if m.ID == c.Line && m.Offset >= 0 {
					off, found = m.Offset, true
				}
			}
		}
		if !found {
			return "", false, fmt.Errorf("%s: no acknowledged %s of %s in run %d of %s", c.Text, c.Line, c.Node, r.Run.Number, r.Dir)
		}
		shown = append(shown, strconv.FormatInt(off, 10))
		ok = ok && off == c.Want[0]
	}
	return compact(shown), ok, nil
}
