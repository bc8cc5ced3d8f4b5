package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kafkabook/kafkabook/internal/evidence"
)

// releaseDifference is an expectation, or the run itself, whose verdict
// is not the same on every Kafka release of a runbook: the finding that a
// release changed something.
type releaseDifference struct {
	What    string // the expectation, or "the run" for completeness
	Held    string // releases on which it held in every run: "4.0.0, 4.1.2"
	NotHeld string // the others, each with its count: "4.4.0 (2 of 4 runs)"
}

// releaseDifferences compares the newest run directory of each release
// (newest, in release order).
func releaseDifferences(newest []siteRun) []releaseDifference {
	if len(newest) < 2 {
		return nil
	}
	var order []string
	held := map[string][]string{}
	notHeld := map[string][]string{}
	add := func(what string, ok bool, version, detail string) {
		if _, seen := held[what]; !seen {
			if _, seen := notHeld[what]; !seen {
				order = append(order, what)
			}
		}
		if ok {
			held[what] = append(held[what], version)
		} else {
			notHeld[what] = append(notHeld[what], version+detail)
		}
	}
	for _, sr := range newest {
		add("the run", sr.Sum.Complete, sr.Version, " (incomplete)")
		for _, x := range sr.Sum.Expects {
			add(x.Expr, x.Held == x.Runs, sr.Version, fmt.Sprintf(" (%d of %d runs)", x.Held, x.Runs))
		}
	}
	var out []releaseDifference
	for _, what := range order {
		if len(held[what]) == 0 || len(notHeld[what]) == 0 {
			continue
		}
		out = append(out, releaseDifference{What: what, Held: strings.Join(held[what], ", "), NotHeld: strings.Join(notHeld[what], ", ")})
	}
	return out
}

// releaseComparison is a page comparing a runbook's evidence on two
// consecutive releases.
type releaseComparison struct {
	From, To string // Kafka versions
	Link     string // relative to the site index
	Changed  int    // rows marked changed
}

// comparePrefix names the comparison pages of a runbook's directory.
const comparePrefix = "compare-"

// writeComparisons writes out/<runbook>/compare-<a>-<b>.html for each
// pair of consecutive releases (their newest run directories), removes
// comparison pages no longer listed, and returns the list for the index.
func writeComparisons(out, runbook string, newest []siteRun) ([]releaseComparison, error) {
	dir := filepath.Join(out, runbook)
	keep := map[string]bool{}
	var list []releaseComparison
	for i := 1; i < len(newest); i++ {
		a, b := newest[i-1], newest[i]
		ra, err := loadRun(a.Dir)
		if err != nil {
			return nil, err
		}
		rb, err := loadRun(b.Dir)
		if err != nil {
			return nil, err
		}
		c := evidence.Compare(ra, rb, "Kafka "+a.Version+" ("+a.Stamp+")", "Kafka "+b.Version+" ("+b.Stamp+")")
		var buf bytes.Buffer
		if err := c.HTML(&buf); err != nil {
			return nil, fmt.Errorf("report: comparing %s and %s: %w", a.Rel, b.Rel, err)
		}
		name := comparePrefix + safeName(a.Version) + "-" + safeName(b.Version) + ".html"
		if err := writeFile(filepath.Join(dir, name), buf.Bytes()); err != nil {
			return nil, err
		}
		keep[name] = true
		list = append(list, releaseComparison{From: a.Version, To: b.Version, Link: runbook + "/" + name, Changed: c.Changed})
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, comparePrefix) && strings.HasSuffix(n, ".html") && !keep[n] {
			os.Remove(filepath.Join(dir, n))
		}
	}
	return list, nil
}

// safeName keeps a version string to characters safe in a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}
