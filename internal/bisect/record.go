package bisect

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/atomicfile"
	"github.com/kafkabook/kafkabook/internal/explain"
	"github.com/kafkabook/kafkabook/results"
)

// Record is a bisect's evidence: what it followed, each release it probed
// with the run directories behind the outcome, and the causes explain
// gives on one side of the change and not on the other. It is written
// next to the runbook's evidence, so that the site and a reader can check
// the bisect's conclusion against the runs it rests on.
type Record struct {
	Runbook  string   `json:"runbook"`
	Judge    string   `json:"judge"`    // "elections(plast)", "expect lost(t) == 0", "every expectation"
	Releases []string `json:"releases"` // every release between the ends, in order
	Probes   []Probed `json:"probes"`   // in the order probed
	Changed  bool     `json:"changed"`
	Before   string   `json:"before"` // the last release with the first end's outcome
	After    string   `json:"after"`  // the first with another, its neighbour
	// OnlyBefore and OnlyAfter are the causes explain gives in the runs of
	// Before and not of After, and the reverse, with node names and
	// offsets left out (which node lost is chance; the kind of cause is
	// the finding).
	OnlyBefore []string `json:"only_before,omitempty"`
	OnlyAfter  []string `json:"only_after,omitempty"`
	// Stopped says why a bisect ended before it could name the
	// neighbours (a run that could not complete, Ctrl-C); its probes so
	// far are recorded all the same.
	Stopped string `json:"stopped,omitempty"`
}

// Probed is one release probed: its outcome and the run directories it
// rests on, relative to the evidence root.
type Probed struct {
	Release string   `json:"release"`
	Outcome Outcome  `json:"outcome"`
	Runs    int      `json:"runs"`
	Dirs    []string `json:"dirs"`
}

// FileName is the record's name in the runbook's evidence directory,
// for the two ends and what it followed.
func FileName(good, bad string) string {
	return fmt.Sprintf("bisect-%s-%s.json", good, bad)
}

// Write stores the record under dir (the runbook's evidence directory).
func (r Record) Write(dir string) (string, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, FileName(r.Releases[0], r.Releases[len(r.Releases)-1]))
	return p, atomicfile.WriteFile(p, append(data, '\n'), 0o644)
}

// DecodeRecord reads a record written elsewhere (a tree being merged),
// refusing one that does not say what a site shows of it: its releases,
// and for each probe a release among them and the run directories, each
// a runbook/series/time path inside the tree.
func DecodeRecord(data []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("not a bisect record: %w", err)
	}
	if r.Runbook == "" || len(r.Releases) < 2 || len(r.Probes) == 0 {
		return r, fmt.Errorf("not a bisect record: no runbook, releases or probes")
	}
	for _, p := range r.Probes {
		if !slices.Contains(r.Releases, p.Release) {
			return r, fmt.Errorf("bisect record: probe of %q, not one of its releases", p.Release)
		}
		for _, d := range p.Dirs {
			parts := strings.Split(d, "/")
			if len(parts) != 3 || !filepath.IsLocal(filepath.FromSlash(d)) || parts[0] != r.Runbook {
				return r, fmt.Errorf("bisect record: run directory %q is not %s/<series>/<time>", d, r.Runbook)
			}
		}
	}
	return r, nil
}

// CauseDifference writes broker names as kN and numbers (offsets,
// epochs) as N: they differ from run to run.
var (
	nodeName = regexp.MustCompile(`\bk\d+\b`)
	number   = regexp.MustCompile(`\b\d+\b`)
)

// CauseDifference compares explain's causes in two sets of runs: those
// found only in a, and only in b, each once, sorted.
func CauseDifference(a, b []results.Run) (onlyA, onlyB []string) {
	ca, cb := causes(a), causes(b)
	for _, c := range ca {
		if !slices.Contains(cb, c) {
			onlyA = append(onlyA, c)
		}
	}
	for _, c := range cb {
		if !slices.Contains(ca, c) {
			onlyB = append(onlyB, c)
		}
	}
	return onlyA, onlyB
}

func causes(runs []results.Run) []string {
	var out []string
	for _, r := range runs {
		for _, f := range explain.Run(r).Findings {
			c := f.Topic + " " + f.Kind + ": " + number.ReplaceAllString(nodeName.ReplaceAllString(f.Short, "kN"), "N")
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return out
}
