package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kafkabook/kafkabook/internal/evidence"
	"github.com/kafkabook/kafkabook/report"
)

// A decision record pastes evidence blocks that kafkabook evidence
// printed ("#### Evidence X: <question>" down to its "- report: [...]"
// line). Each is checked to be, byte for byte, what kafkabook evidence
// prints today for the run it links to: a block cannot drift from its run,
// nor from the build's wording (the bounds it states, for one).

var (
	blockHead = regexp.MustCompile(`^#### (?:Evidence ([^:]+)|Sweep): (.*)$`)
	blockLink = regexp.MustCompile(`^- (?:report|settings): \[[^\]]*\]\(([^)]+)\)$`)
)

// block is one pasted evidence block, or a sweep's block ("#### Sweep:
// NAME" down to its "- settings: [...]" line, from kafkabook evidence
// --sweep), checked the same way against every run of the sweep in the
// site its settings link points into.
type block struct {
	Sweep string // the sweep's name, for a sweep's block
	Name  string // A, D-java
	Line  int    // of its heading
	Text  string // as pasted, heading to report line
	Link  string // the report link as written
}

// readBlocks returns the evidence blocks of the Markdown file path.
func readBlocks(path string) ([]block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []block
	var cur *block
	var text strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if g := blockHead.FindStringSubmatch(line); g != nil {
			if cur != nil {
				return nil, fmt.Errorf("%s:%d: evidence block %s has no report line before the next block", path, cur.Line, cur.Name)
			}
			cur = &block{Name: g[1], Line: n}
			if g[1] == "" {
				cur.Name, cur.Sweep = "sweep "+g[2], g[2]
			}
			text.Reset()
		}
		if cur == nil {
			continue
		}
		text.WriteString(line + "\n")
		if g := blockLink.FindStringSubmatch(line); g != nil {
			cur.Text, cur.Link = text.String(), g[1]
			out = append(out, *cur)
			cur = nil
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: evidence block %s ends without its report line", path, cur.Line, cur.Name)
	}
	return out, sc.Err()
}

// checkBlocks checks every evidence block of file against its run,
// printing each that differs, and returns how many there were and
// whether all matched.
func checkBlocks(w io.Writer, file string) (int, bool) {
	blocks, err := readBlocks(file)
	if err != nil {
		fmt.Fprintln(w, err)
		return 0, false
	}
	ok := true
	for _, b := range blocks {
		if err := checkBlock(file, b); err != nil {
			fmt.Fprintf(w, "%s:%d: evidence block %s: %v\n", file, b.Line, b.Name, err)
			ok = false
		}
	}
	return len(blocks), ok
}

// checkBlock prints the block's run (or sweep) again and compares.
func checkBlock(file string, b block) error {
	var want, dir string
	if b.Sweep != "" {
		dir = filepath.Join(filepath.Dir(file), filepath.FromSlash(path.Dir(b.Link)))
		s, err := report.LoadSweep(dir, b.Sweep, b.Link)
		if err != nil {
			return err
		}
		var out bytes.Buffer
		if err := s.Markdown(&out); err != nil {
			return err
		}
		return sameBlock(out.String(), b.Text, "--sweep "+b.Sweep+" "+dir)
	}
	if !strings.HasSuffix(b.Link, "/"+report.IndexFile) {
		return fmt.Errorf("its report link %s does not end in %s", b.Link, report.IndexFile)
	}
	dir = filepath.Join(filepath.Dir(file), filepath.FromSlash(path.Dir(b.Link)))
	res, sum, err := report.ReadResults(dir)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := evidence.Summarize(res, sum, b.Link).Markdown(&out); err != nil {
		return err
	}
	want = strings.Replace(out.String(), "#### Evidence: ", "#### Evidence "+b.Name+": ", 1)
	return sameBlock(want, b.Text, dir)
}

// sameBlock compares a pasted block with what kafkabook evidence args
// prints now, naming the first line that differs.
func sameBlock(want, pasted, args string) error {
	if want == pasted {
		return nil
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(pasted, "\n")
	for i := range min(len(wl), len(gl)) {
		if wl[i] != gl[i] {
			return fmt.Errorf("line %d of the block differs from what kafkabook evidence %s prints now (paste it again):\n  pasted: %s\n  prints: %s", i+1, args, gl[i], wl[i])
		}
	}
	return fmt.Errorf("it has %d lines, kafkabook evidence %s prints %d (paste it again)", len(gl), args, len(wl))
}
