package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A marker speaks of every published run of what it cites: each cited
// directory is a cell (a runbook on one Kafka release through one client),
// and every run of that cell published with the runbook's current steps
// must be cited, and no run with other steps, unless the marker says
// `subset` (and the sentence says which runs it speaks of): otherwise a
// sentence could pick the runs that agree with it.

// cellRuns are the published run directories of the cell a cited
// directory belongs to (relative to output), sorted.
func (l *loader) cellRuns(dir string) []string {
	cell := filepath.Dir(dir)
	entries, err := os.ReadDir(filepath.Join(l.output, cell))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Type()&os.ModeSymlink == 0 && e.Name() != "latest" {
			out = append(out, filepath.ToSlash(filepath.Join(cell, e.Name())))
		}
	}
	slices.Sort(out)
	return out
}

// steps are the step lines of a runbook's source: its kafka blocks, as
// written; prose and front matter aside.
func steps(src []byte) string {
	var b strings.Builder
	in := false
	for _, line := range bytes.Split(src, []byte("\n")) {
		t := strings.TrimSpace(string(line))
		switch {
		case !in && strings.HasPrefix(t, "```kafka"):
			in = true
		case in && strings.HasPrefix(t, "```"):
			in = false
		case in:
			b.WriteString(t + "\n")
		}
	}
	return b.String()
}

// runSteps are the steps of the runbook a run directory stored, and the
// configuration in force of the clients it ran (provenance.clients): runs
// of the same steps whose clients ran otherwise (franz-go on kafkabook's
// former tuning, before it recorded its configuration) are another
// experiment.
func (l *loader) runSteps(dir string) (string, string, error) {
	r, err := l.load(dir)
	if err != nil {
		return "", "", err
	}
	src, err := os.ReadFile(filepath.Join(l.output, dir, r.Runbook.File))
	if err != nil {
		return "", "", err
	}
	clients, err := json.Marshal(r.Provenance.Clients)
	if err != nil {
		return "", "", err
	}
	return steps(src), string(clients), nil
}

// checkCited says what a marker's citation leaves out or takes in against
// the current steps of the runbooks it cites (examples/<runbook>.md).
func (l *loader) checkCited(m marker) []string {
	if m.Subset || l.examples == "" {
		return nil
	}
	var problems []string
	cited := map[string]bool{}
	for _, d := range m.Dirs {
		cited[d] = true
	}
	seenCell := map[string]bool{}
	for _, d := range m.Dirs {
		runbook := strings.SplitN(d, "/", 2)[0]
		if r, err := l.load(d); err == nil && r.Runbook.Sweep != "" {
			runbook = r.Runbook.Sweep // a combination of a sweep: the sweep's file
		}
		src, err := os.ReadFile(filepath.Join(l.examples, runbook+".md"))
		if err != nil {
			continue // not an example: nothing to hold it to
		}
		current := steps(src)
		s, clients, err := l.runSteps(d)
		if err == nil && s != current {
			problems = append(problems, fmt.Sprintf("%s ran other steps than %s has now", d, filepath.Join(l.examples, runbook+".md")))
		}
		cell := filepath.Dir(d)
		if seenCell[cell] {
			continue
		}
		seenCell[cell] = true
		for _, other := range l.cellRuns(d) {
			if cited[other] {
				continue
			}
			// Another run of the cell with the current steps, and its
			// clients as the cited run's, is the same experiment.
			if s, c, err := l.runSteps(other); err == nil && s == current && c == clients {
				problems = append(problems, fmt.Sprintf("%s, published with the current steps and the same clients, is not cited", other))
			}
		}
	}
	return problems
}
