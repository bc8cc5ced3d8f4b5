package report

import (
	"bytes"
	"encoding/json"
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
		add("the run", sr.Sum.Complete, sr.label(), " (incomplete)")
		for _, x := range sr.Sum.Expects {
			add(x.Expr, x.Held == x.Runs, sr.label(), fmt.Sprintf(" (%d of %d runs)", x.Held, x.Runs))
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

// comparisonsFile, in each out/<runbook>/ directory, lists the comparison
// pages written there and the runs each compares, so that a site update
// rewrites only the pages of the pairs that changed.
const comparisonsFile = "comparisons.json"

// storedComparison is an entry of comparisonsFile.
type storedComparison struct {
	Page    string `json:"page"`
	FromRun string `json:"from_run"` // run directories, relative to the site
	ToRun   string `json:"to_run"`
	Changed int    `json:"changed"`
	// Names are how the page names the two runs (their release, and client
	// when the runbook has runs through other clients than franz-go): a
	// page whose names changed is written again.
	Names string `json:"names,omitempty"`
}

// writeComparisons writes out/<runbook>/compare-<a>-<b>.html for each
// pair of comparisonPairs (newest run directories) that fresh
// says changed, or that has no page of these two runs yet; removes the
// comparison pages no longer listed; and returns the list for the index.
func writeComparisons(out, runbook string, newest []siteRun, fresh func(a, b siteRun) bool) ([]releaseComparison, error) {
	dir := filepath.Join(out, runbook)
	stored := map[string]storedComparison{}
	if data, err := os.ReadFile(filepath.Join(dir, comparisonsFile)); err == nil {
		var list []storedComparison
		if json.Unmarshal(data, &list) == nil {
			for _, c := range list {
				stored[c.Page] = c
			}
		}
	}
	keep := map[string]bool{}
	var list []releaseComparison
	var index []storedComparison
	for _, pair := range comparisonPairs(newest) {
		a, b := pair[0], pair[1]
		name := comparePrefix + safeName(a.Version) + "-" + safeName(b.Version) + ".html"
		c, ok := stored[name]
		names := a.label() + " → " + b.label()
		if !ok || c.FromRun != a.Rel || c.ToRun != b.Rel || c.Names != names || fresh(a, b) || !lexists(filepath.Join(dir, name)) {
			changed, err := writeComparison(filepath.Join(dir, name), a, b)
			if err != nil {
				return nil, err
			}
			c = storedComparison{Page: name, FromRun: a.Rel, ToRun: b.Rel, Changed: changed, Names: names}
		}
		keep[name] = true
		index = append(index, c)
		list = append(list, releaseComparison{From: a.label(), To: b.label(), Link: runbook + "/" + name, Changed: c.Changed})
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, comparePrefix) && strings.HasSuffix(n, ".html") && !keep[n] {
			os.Remove(filepath.Join(dir, n))
		}
	}
	if len(index) == 0 {
		os.Remove(filepath.Join(dir, comparisonsFile))
		return list, nil
	}
	data, err := json.MarshalIndent(index, "", " ")
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return list, writeFile(filepath.Join(dir, comparisonsFile), append(data, '\n'))
}

// comparisonPairs are the pairs of runs (newest, in release order) that
// get a comparison page: consecutive releases with the same client, then
// the clients of one release side by side, each next to the one before
// it. A pair of another release and another client would compare two
// things at once, and neither difference would be readable from it.
func comparisonPairs(newest []siteRun) [][2]siteRun {
	var byClient, byRelease [][]siteRun // each group in the order first seen
	clientAt, releaseAt := map[string]int{}, map[string]int{}
	add := func(groups *[][]siteRun, at map[string]int, key string, sr siteRun) {
		i, ok := at[key]
		if !ok {
			i = len(*groups)
			at[key] = i
			*groups = append(*groups, nil)
		}
		(*groups)[i] = append((*groups)[i], sr)
	}
	for _, sr := range newest {
		release, client := sr.releaseClient()
		add(&byClient, clientAt, client, sr)
		add(&byRelease, releaseAt, release, sr)
	}
	var pairs [][2]siteRun
	for _, runs := range append(byClient, byRelease...) {
		for i := 1; i < len(runs); i++ {
			pairs = append(pairs, [2]siteRun{runs[i-1], runs[i]})
		}
	}
	return pairs
}

// releaseClient splits a run directory's version, 4.3.1-java or
// 4.3.1-librdkafka-2.15.1, into the Kafka release and the client
// ("" for franz-go).
func (sr siteRun) releaseClient() (release, client string) {
	release, client, _ = strings.Cut(sr.Version, "-")
	return release, client
}

// writeComparison writes the page comparing the runs a and b, and returns
// how many of its rows changed.
func writeComparison(p string, a, b siteRun) (int, error) {
	ra, err := LoadRun(a.Dir)
	if err != nil {
		return 0, err
	}
	rb, err := LoadRun(b.Dir)
	if err != nil {
		return 0, err
	}
	c := evidence.Compare(ra, rb, "Kafka "+a.label()+" ("+a.Stamp+")", "Kafka "+b.label()+" ("+b.Stamp+")")
	var buf bytes.Buffer
	if err := c.HTML(&buf); err != nil {
		return 0, fmt.Errorf("report: comparing %s and %s: %w", a.Rel, b.Rel, err)
	}
	if err := writePage(p, buf.Bytes()); err != nil {
		return 0, err
	}
	rendered("comparison", p)
	return c.Changed, nil
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
