package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kafkabook/kafkabook/results"
)

func main() {
	output := flag.String("output", "output", "the directory the markers' run directories are relative to")
	examples := flag.String("examples", "", "with a directory of runbooks (examples): also require every marker to cite each published run of its cells with the runbook's current steps, and no other, unless it says subset")
	lint := flag.Bool("lint", false, "also fail on a number, duration, release, commit or message range in the prose that no marker states (lint.go)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: prosecheck [-output DIR] [-examples DIR] [-lint] FILE.md...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if !check(os.Stdout, *output, *examples, *lint, flag.Args()) {
		os.Exit(1)
	}
}

// check checks every marker of files against the runs under output,
// printing each mismatch and error to w, then a summary. It reports
// whether every claim matched.
func check(w io.Writer, output, examples string, lint bool, files []string) bool {
	l := loader{output: output, examples: examples, cache: map[string]*results.Results{}}
	good := true
	var markers, claims, blocks int
	for _, f := range files {
		n, ok := checkBlocks(w, f)
		blocks += n
		good = good && ok
		if lint && !l.lint(w, f, l.configNumbers(f)) {
			good = false
		}
		ms, errs := readMarkers(f)
		for _, err := range errs {
			fmt.Fprintln(w, err)
			good = false
		}
		for _, m := range ms {
			markers++
			claims += len(m.Claims)
			if !l.checkMarker(w, m) {
				good = false
			}
		}
	}
	verdict := "all match the evidence"
	if !good {
		verdict = "SOME DO NOT MATCH"
	}
	fmt.Fprintf(w, "prosecheck: %d claims in %d markers and %d evidence blocks of %d files: %s\n", claims, markers, blocks, len(files), verdict)
	return good
}

// loader loads each cited run directory once.
type loader struct {
	output   string
	examples string
	cache    map[string]*results.Results
}

func (l *loader) load(dir string) (*results.Results, error) {
	if r, ok := l.cache[dir]; ok {
		return r, nil
	}
	r, err := results.Load(filepath.Join(l.output, dir))
	if err != nil {
		return nil, fmt.Errorf("run directory %s (under %s): %w", dir, l.output, err)
	}
	l.cache[dir] = r
	return r, nil
}

// checkMarker checks the claims of one marker and reports whether all
// matched.
func (l *loader) checkMarker(w io.Writer, m marker) bool {
	var runs []citedRun
	for _, d := range m.Dirs {
		r, err := l.load(d)
		if err != nil {
			fmt.Fprintf(w, "%s: %s: %v\n", m.Pos, m.Text, err)
			return false
		}
		for _, run := range r.Runs {
			runs = append(runs, citedRun{Dir: d, Run: run})
		}
	}
	good := true
	for _, p := range l.checkCited(m) { // only with -examples
		fmt.Fprintf(w, "%s: %s: %s (cite every run of the cell with the current steps, or write subset first and say in the sentence which runs it speaks of)\n", m.Pos, m.Text, p)
		good = false
	}
	for _, c := range m.Claims {
		var got string
		var ok bool
		var err error
		switch c.Kind {
		case "config":
			got, ok, err = c.checkConfig(l, m.Dirs)
		case "feature":
			got, ok, err = c.checkFeature(l, m.Dirs)
		default:
			got, ok, err = c.check(runs)
		}
		switch {
		case err != nil:
			fmt.Fprintf(w, "%s: %s: %v\n", m.Pos, m.Text, err)
			good = false
		case !ok:
			fmt.Fprintf(w, "%s: %s: want %s, evidence says %s\n", m.Pos, m.Text, c.Text, got)
			good = false
		}
	}
	return good
}
