package runbook

import (
	"fmt"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// maxCheckedRuns bounds how many runs Load checks one by one when steps
// refer to ${run}; the last run is always checked too.
const maxCheckedRuns = 20

// Load parses a runbook and checks it: front matter, blocks, every step of
// every run against the directive registry and against the document
// (nodes, topics, parameters, background steps). Overrides from the command
// line are applied before checking.
//
// The error, if any, is an ErrorList holding every problem found. Load
// returns the Doc even then, as far as it could be parsed, for tools that
// want to show it; callers that run it must not.
func Load(path string, src []byte, ov Overrides) (*Doc, error) {
	s := newSource(path, src)
	d := &Doc{
		Path:   path,
		Source: src,
		Meta: Meta{
			Kafka:  []string{DefaultKafka},
			Nodes:  3,
			Repeat: 1,
			Broker: map[string]string{},
			Params: map[string]string{},
		},
	}
	var errs ErrorList

	// Front matter, then blank it out so that goldmark sees the body at the
	// same byte offsets.
	masked := src
	body := 0
	if open, close, ok, err := frontMatter(s); err != nil {
		errs = append(errs, err)
	} else if ok {
		errs = append(errs, parseMeta(s, open, close, &d.Meta)...)
		if len(d.Meta.Kafka) == 0 {
			d.Meta.Kafka = []string{DefaultKafka}
		}
		end := len(src)
		if close+1 < s.lines() {
			end = s.starts[close+1]
		}
		masked = append([]byte(nil), src...)
		for i := 0; i < end; i++ {
			if masked[i] != '\n' {
				masked[i] = ' '
			}
		}
		body = close + 1
	}
	declared := map[string]bool{}
	for k := range d.Meta.Params {
		declared[k] = true
	}

	blocks, title, berrs := splitMarkdown(s, masked, body)
	errs = append(errs, berrs...)
	d.Blocks = blocks
	if d.Meta.Title == "" {
		d.Meta.Title = title
	}

	// Lex the step lines once; references are expanded per run later.
	used := map[string]bool{}
	var refs []piece
	for bi := range d.Blocks {
		b := &d.Blocks[bi]
		if b.Kind != Kafka {
			continue
		}
		first := b.Pos.Line // the fence line, 1-based: content starts on the next line
		for li := first; li < first+b.lines; li++ {
			line := s.line(li)
			lx, lerrs := lexLine(path, li+1, line)
			errs = append(errs, lerrs...)
			if len(lx.toks) == 0 {
				if lx.background {
					errs = append(errs, &Error{Pos: s.pos(li, lx.bgCol-1), Msg: `"&" without a step before it`})
				}
				continue
			}
			for _, t := range lx.toks {
				for _, p := range t.pieces {
					if p.ref != "" {
						refs = append(refs, piece{ref: p.ref, col: p.col, cols: []int{li + 1}})
						used[p.ref] = true
					}
				}
			}
			b.Steps = append(b.Steps, Step{
				Pos:        s.pos(li, lx.start),
				Text:       strings.TrimRight(line[lx.start:lx.end], " \t\r"),
				Background: lx.background,
				toks:       lx.toks,
			})
		}
	}
	d.usesRun = used["run"]

	errs = append(errs, applyOverrides(d, ov, declared, used)...)

	for _, r := range refs {
		if r.ref == "run" {
			continue
		}
		if _, ok := d.Meta.Params[r.ref]; !ok {
			var names []string
			for k := range d.Meta.Params {
				names = append(names, k)
			}
			sort.Strings(names)
			errs = append(errs, &Error{
				Pos: Pos{path, r.cols[0], r.col},
				Msg: fmt.Sprintf("undefined parameter ${%s}%s: define it under params: in the front matter or pass -p %s=VALUE",
					r.ref, didYouMean(r.ref, names), r.ref),
			})
		}
	}

	// Check every run whose steps may differ; report what only a later run
	// gets wrong with the run number.
	runs := []int{1}
	if d.usesRun {
		for r := 2; r <= min(d.Meta.Repeat, maxCheckedRuns); r++ {
			runs = append(runs, r)
		}
		if d.Meta.Repeat > maxCheckedRuns {
			runs = append(runs, d.Meta.Repeat)
		}
	}
	first := map[string]bool{}
	var expanded []Block
	for _, r := range runs {
		c := newChecker(d, r)
		bs := c.expandAll()
		for _, e := range c.errs {
			key := e.Error()
			if r == 1 {
				first[key] = true
			} else if !first[key] {
				e.Msg += fmt.Sprintf(" (in run %d)", r)
			}
			errs = append(errs, e)
		}
		if r == 1 {
			expanded = bs
			d.Warnings = c.warns
		}
	}
	d.Blocks = expanded
	for _, w := range d.Warnings {
		w.Line = s.line(w.Pos.Line - 1)
	}
	d.Warnings.sort()

	if len(errs) == 0 {
		return d, nil
	}
	for _, e := range errs {
		if e.Pos.Line > 0 {
			e.Line = s.line(e.Pos.Line - 1)
		}
	}
	errs.sort()
	return d, errs
}

// applyOverrides applies the command-line overrides to d.Meta.
func applyOverrides(d *Doc, ov Overrides, declared, used map[string]bool) ErrorList {
	var errs ErrorList
	errorf := func(format string, args ...any) {
		errs = append(errs, &Error{Pos: Pos{File: d.Path}, Msg: fmt.Sprintf(format, args...)})
	}
	if len(ov.Kafka) > 0 {
		var vs []string
		for _, v := range ov.Kafka {
			if !validVersion(v) {
				errorf("--kafka %s: bad version: want a release like %s", v, DefaultKafka)
				continue
			}
			vs = append(vs, v)
		}
		if len(vs) > 0 {
			d.Meta.Kafka = vs
		}
	}
	switch {
	case ov.Nodes < 0:
		errorf("--nodes %d: must be positive", ov.Nodes)
	case ov.Nodes > 0:
		d.Meta.Nodes = ov.Nodes
	}
	switch {
	case ov.Repeat < 0:
		errorf("--repeat %d: must be positive", ov.Repeat)
	case ov.Repeat > 0:
		d.Meta.Repeat = ov.Repeat
	}
	var known []string
	for k := range declared {
		known = append(known, k)
	}
	for k := range used {
		if k != "run" && !declared[k] {
			known = append(known, k)
		}
	}
	sort.Strings(known)
	var names []string
	for k := range ov.Params {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		switch {
		case k == "run":
			errorf("-p run=...: ${run} is the run number and cannot be set")
		case !declared[k] && !used[k]:
			errorf("-p %s=...: the runbook has no parameter %q%s", k, k, didYouMean(k, known))
		default:
			d.Meta.Params[k] = ov.Params[k]
		}
	}
	return errs
}

// splitMarkdown cuts the body (from 0-based line body on) into prose and
// code blocks. Only fenced blocks at the top level of the document are
// blocks of their own; a kafka or sh block nested in a list or a quote is an
// error, since it would silently not run.
func splitMarkdown(s *source, masked []byte, body int) ([]Block, string, ErrorList) {
	var (
		blocks []Block
		errs   ErrorList
		title  string
	)
	root := goldmark.DefaultParser().Parse(text.NewReader(masked))

	prose := func(from, to int) {
		for from < to && strings.TrimSpace(s.line(from)) == "" {
			from++
		}
		for to > from && strings.TrimSpace(s.line(to-1)) == "" {
			to--
		}
		if from < to {
			blocks = append(blocks, Block{
				Kind: Prose,
				Pos:  s.pos(from, 0),
				Text: strings.Join(s.lineRange(from, to), "\n") + "\n",
			})
		}
	}

	next := body // first line not yet in a block
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && title == "" && h.Level == 1 && h.Lines().Len() > 0 {
			title = strings.TrimSpace(string(h.Lines().Value(masked)))
		}
		fc, ok := n.(*ast.FencedCodeBlock)
		if !ok {
			continue
		}
		off := fenceOffset(fc, s)
		if off < 0 {
			continue
		}
		open := s.lineOf(off)
		if open < next {
			continue
		}
		prose(next, open)
		fence := s.line(open)[off-s.starts[open]:]
		fenceLen := len(fence) - len(strings.TrimLeft(fence, fence[:1]))
		last := open + fc.Lines().Len() // last content line
		next = last + 1
		if next < s.lines() && isClosingFence(s.line(next), fence[0], fenceLen) {
			next++
		}
		info := ""
		if fc.Info != nil {
			info = strings.TrimSpace(string(fc.Info.Segment.Value(masked)))
		}
		kind := Code
		switch string(fc.Language(masked)) {
		case "kafka":
			kind = Kafka
		case "sh":
			kind = Shell
		}
		blocks = append(blocks, Block{
			Kind:  kind,
			Pos:   s.pos(open, off-s.starts[open]),
			Info:  info,
			Text:  string(fc.Lines().Value(masked)),
			lines: fc.Lines().Len(),
		})
	}
	prose(next, s.lines())

	// Nested step blocks.
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok || n.Parent() == root {
			return ast.WalkContinue, nil
		}
		lang := string(fc.Language(masked))
		if lang == "kafka" || lang == "sh" {
			off := fenceOffset(fc, s)
			if off < 0 {
				off = 0
			}
			errs = append(errs, &Error{Pos: s.offPos(off),
				Msg: fmt.Sprintf("%s block inside a list or quote: it would not run; move it to the top level", lang)})
		}
		return ast.WalkContinue, nil
	})
	return blocks, title, errs
}

// fenceOffset returns the byte offset of the opening fence of fc.
func fenceOffset(fc *ast.FencedCodeBlock, s *source) int {
	off := fc.Pos()
	if off >= 0 && off < len(s.src) && (s.src[off] == '`' || s.src[off] == '~') {
		return off
	}
	if fc.Info != nil {
		// The fence is on the line of the info string, before it.
		i := fc.Info.Segment.Start
		line := s.lineOf(i)
		start := s.starts[line]
		l := s.src[start:i]
		for j := range l {
			if l[j] == '`' || l[j] == '~' {
				return start + j
			}
		}
	}
	return off
}

// isClosingFence reports whether line closes a fence of n chars c.
func isClosingFence(line string, c byte, n int) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	k := 0
	for k < len(t) && t[k] == c {
		k++
	}
	return k >= n && strings.TrimSpace(t[k:]) == ""
}
