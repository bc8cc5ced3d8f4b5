package main

import (
	"fmt"
	"regexp"

	"github.com/kafkabook/kafkabook/internal/explain"
	"github.com/kafkabook/kafkabook/results"
)

// An elections claim states how a topic's leaders were elected in every
// cited run, as explain reads it in the brokers' lines (explain.HowElected,
// what kafkabook bisect --elections follows):
//
//	elections(plast)=clean per run
//	elections(plast)=last-known-leader per run

var electionsRe = regexp.MustCompile(`^elections\(\s*([^()\s]+)\s*\)$`)

// parseElections reads an elections claim's two sides into c.
func parseElections(c *claim, lhs, rhs string) error {
	g := electionsRe.FindStringSubmatch(lhs)
	if g == nil || c.Op != "==" || c.Scope != "per run" {
		return fmt.Errorf("cannot read %q: write elections(topic)=last-known-leader per run", lhs+"="+rhs)
	}
	c.Kind, c.Node, c.Set = "elections", g[1], []string{rhs}
	return nil
}

// checkElections compares each run's elections with the claim.
func (c claim) checkElections(runs []citedRun) (string, bool, error) {
	var shown []string
	ok := true
	for _, r := range runs {
		got := explain.HowElected([]results.Run{r.Run}, c.Node)
		shown = append(shown, got)
		ok = ok && got == c.Set[0]
	}
	return compact(shown), ok, nil
}
