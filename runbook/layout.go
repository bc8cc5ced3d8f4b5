package runbook

import (
	"bytes"
	"strings"
)

// Outline is a runbook laid out for reading: its front matter as written and
// its blocks in file order, each step with the position the engine records
// for it. Nothing in it was checked: steps are as written (parameters not
// expanded, directives not resolved), so an Outline can be shown but never
// run. Load gives the checked Doc that runs.
type Outline struct {
	Path        string
	FrontMatter string  // the YAML between the --- lines, "" when there is none
	Title       string  // the first level-1 heading, "" when there is none
	Blocks      []Block // prose, kafka, sh and other code blocks
}

// Layout splits src, the runbook stored as path, into prose blocks and step
// blocks with their positions, without checking any step. A report lays out
// stored evidence with it: a runbook that no longer checks (the directive
// registry moved on since it ran) is laid out all the same, and laying out
// costs no more than parsing the Markdown once.
func Layout(path string, src []byte) Outline {
	src = bytes.TrimPrefix(src, []byte(bom)) // positions count from after it, as in Load
	s := newSource(path, src)
	o := Outline{Path: path}
	masked, body := src, 0
	if open, close, ok, err := frontMatter(s); err == nil && ok {
		o.FrontMatter = strings.TrimRight(strings.Join(s.lineRange(open+1, close), "\n"), "\r\n")
		masked, body = maskLines(s, close+1), close+1
	}
	o.Blocks, o.Title, _ = splitMarkdown(s, masked, body)
	for i := range o.Blocks {
		b := &o.Blocks[i]
		if b.Kind != Kafka {
			continue
		}
		for li := b.Pos.Line; li < b.Pos.Line+b.lines; li++ {
			line := s.line(li)
			lx, _ := lexLine(path, li+1, line)
			if len(lx.toks) == 0 {
				continue
			}
			b.Steps = append(b.Steps, Step{
				Pos:        s.pos(li, lx.start),
				Text:       strings.TrimRight(line[lx.start:lx.end], " \t\r"),
				Background: lx.background,
			})
		}
	}
	return o
}
