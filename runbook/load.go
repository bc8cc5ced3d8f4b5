package runbook

import (
	"bytes"
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

// Limits on what Load reads, so that check stays fast and small on any
// input: a runbook is prose and a few hundred steps, not a data file.
const (
	MaxRunbookBytes = 256 << 10 // the whole file
	MaxStepBytes    = 4096      // one line of a kafka block
	// manyErrors is how many errors make Load stop: what more would add
	// is more of the same, at a cost that grows with the input.
	manyErrors = 1000
)

// stopped is the error that says Load stopped checking at p.
func stopped(p Pos) *Error {
	return &Error{Pos: p, Msg: fmt.Sprintf("too many errors: checking stopped here, after %d", manyErrors)}
}

// bom is the UTF-8 byte order mark some editors put at the top of a file.
const bom = "\xEF\xBB\xBF"

// Load parses a runbook and checks it: front matter, blocks, every step of
// every run against the directive registry and against the document
// (nodes, topics, parameters, background steps). Overrides from the command
// line are applied before checking. It assumes a machine that can do
// everything a runbook asks; LoadFor checks against what the caller's
// machine can do.
//
// The error, if any, is an ErrorList holding every problem found. Load
// returns the Doc even then, as far as it could be parsed, for tools that
// want to show it; callers that run it must not.
func Load(path string, src []byte, ov Overrides) (*Doc, error) {
	return LoadFor(path, src, ov, Capabilities{})
}

// LoadFor is Load for a machine with the given capabilities: steps the
// machine cannot carry out (a power loss without FUSE) are errors.
func LoadFor(path string, src []byte, ov Overrides, caps Capabilities) (*Doc, error) {
	d := &Doc{
		Path:   path,
		Source: src,
		Meta: Meta{
			Kafka:  []string{DefaultKafka},
			Nodes:  3,
			Repeat: 1,
			Broker: map[string]string{},
			Params: map[string]string{},
			Client: []string{DefaultClient},
		},
	}
	if len(src) > MaxRunbookBytes {
		return d, ErrorList{{Pos: Pos{File: path}, Msg: fmt.Sprintf("the runbook is %d KiB: a runbook is at most %d KiB", (len(src)+1023)>>10, MaxRunbookBytes>>10)}}
	}
	// Positions count from after a byte order mark, as editors show them.
	s := newSource(path, bytes.TrimPrefix(src, []byte(bom)))
	l := &loader{d: d, s: s, caps: caps}
	l.body(l.frontMatter())
	l.errs = append(l.errs, applyOverrides(d, ov, l.declared, l.used)...)
	l.errs = append(l.errs, applySweep(d, ov, l.declared)...)
	l.errs = append(l.errs, checkBroker(l.broker, d.Meta.Kafka)...)
	l.errs = append(l.errs, checkClientSettings(l.client, &d.Meta, caps)...)
	l.undefinedRefs()
	l.checkRuns()
	return d, l.finish()
}

// loader holds what Load has found so far.
type loader struct {
	d        *Doc
	s        *source
	caps     Capabilities
	errs     ErrorList
	broker   []metaSetting   // the broker: settings, with positions
	client   []clientSetting // the producer: and consumer: settings, with positions
	declared map[string]bool // parameters declared under params:
	used     map[string]bool // parameters referred to by steps
	refs     []piece         // every ${ref}, with its position
	stopped  bool            // too many errors: the rest is not lexed
}

// frontMatter parses the front matter. It returns the source with the
// front matter blanked out, so that goldmark sees the body at the same
// byte offsets, and the 0-based line the body starts on.
func (l *loader) frontMatter() (masked []byte, body int) {
	s, d := l.s, l.d
	open, close, ok, err := frontMatter(s)
	if err != nil {
		l.errs = append(l.errs, err)
	}
	if !ok {
		return s.src, 0
	}
	var errs ErrorList
	l.broker, l.client, errs = parseMeta(s, open, close, &d.Meta)
	l.errs = append(l.errs, errs...)
	if len(d.Meta.Kafka) == 0 {
		d.Meta.Kafka = []string{DefaultKafka}
	}
	if len(d.Meta.Client) == 0 {
		d.Meta.Client = []string{DefaultClient}
	}
	return maskLines(s, close+1), close + 1
}

// body splits the Markdown into blocks and lexes every step line once;
// references are expanded per run later.
func (l *loader) body(masked []byte, body int) {
	s, d := l.s, l.d
	l.declared = map[string]bool{}
	for k := range d.Meta.Params {
		l.declared[k] = true
	}
	blocks, title, berrs := splitMarkdown(s, masked, body)
	l.errs = append(l.errs, berrs...)
	d.Blocks = blocks
	if d.Meta.Title == "" {
		d.Meta.Title = title
	}
	l.used = map[string]bool{}
	for bi := range d.Blocks {
		if b := &d.Blocks[bi]; b.Kind == Kafka {
			l.steps(b)
		}
	}
	d.usesRun = l.used["run"]
}

// maskLines returns a copy of the source with its first n lines blanked
// out, newlines kept.
func maskLines(s *source, n int) []byte {
	end := len(s.src)
	if n < s.lines() {
		end = s.starts[n]
	}
	masked := append([]byte(nil), s.src...)
	for i := 0; i < end; i++ {
		if masked[i] != '\n' {
			masked[i] = ' '
		}
	}
	return masked
}

// steps lexes the lines of kafka block b into its steps.
func (l *loader) steps(b *Block) {
	s := l.s
	first := b.Pos.Line // the fence line, 1-based: content starts on the next line
	for li := first; li < first+b.lines; li++ {
		if len(l.errs) >= manyErrors {
			if !l.stopped {
				l.errs = append(l.errs, stopped(s.pos(li, 0)))
				l.stopped = true
			}
			return
		}
		line := s.line(li)
		if len(line) > MaxStepBytes {
			l.errs = append(l.errs, &Error{Pos: s.pos(li, 0), Msg: fmt.Sprintf("step line is %d bytes long: a step is at most %d", len(line), MaxStepBytes)})
			continue
		}
		lx, lerrs := lexLine(s.path, li+1, line)
		l.errs = append(l.errs, lerrs...)
		if len(lx.toks) == 0 {
			if lx.background {
				l.errs = append(l.errs, &Error{Pos: s.pos(li, lx.bgCol-1), Msg: `"&" without a step before it`})
			}
			continue
		}
		for _, t := range lx.toks {
			for _, p := range t.pieces {
				if p.ref != "" {
					l.refs = append(l.refs, piece{ref: p.ref, col: p.col, cols: []int{li + 1}})
					l.used[p.ref] = true
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

// undefinedRefs reports every ${name} that no parameter defines.
func (l *loader) undefinedRefs() {
	var names []string
	for k := range l.d.Meta.Params {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, r := range l.refs {
		if _, ok := l.d.Meta.Params[r.ref]; ok || r.ref == "run" {
			continue
		}
		l.errs = append(l.errs, &Error{
			Pos: Pos{l.s.path, r.cols[0], r.col},
			Msg: fmt.Sprintf("undefined parameter ${%s}%s: define it under params: in the front matter or pass -p %s=VALUE",
				r.ref, didYouMean(r.ref, names), r.ref),
		})
	}
}

// checkRuns checks every run whose steps may differ, and reports what only
// a later run gets wrong with the run number. The Doc keeps run 1's steps.
func (l *loader) checkRuns() {
	d := l.d
	if l.stopped {
		return // too many errors already
	}
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
		if r > 1 && len(l.errs) >= manyErrors {
			break
		}
		c := newChecker(d, r)
		c.caps = l.caps
		bs := c.expandAll()
		for _, e := range c.errs {
			key := e.Error()
			if r == 1 {
				first[key] = true
			} else if !first[key] {
				e.Msg += fmt.Sprintf(" (in run %d)", r)
			}
			l.errs = append(l.errs, e)
		}
		if r == 1 {
			expanded = bs
			d.Warnings = c.warns
		}
	}
	d.Blocks = expanded
}

// finish gives every error and warning its source line, in file order.
func (l *loader) finish() error {
	for _, w := range l.d.Warnings {
		w.Line = l.s.line(w.Pos.Line - 1)
	}
	l.d.Warnings.sort()
	if len(l.errs) == 0 {
		return nil
	}
	for _, e := range l.errs {
		if e.Pos.Line > 0 {
			e.Line = l.s.line(e.Pos.Line - 1)
		}
	}
	l.errs.sort()
	return l.errs
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
			if msg := releaseError(v); msg != "" {
				errorf("--kafka %s: %s", v, msg)
				continue
			}
			vs = append(vs, v)
		}
		if len(vs) > 0 {
			d.Meta.Kafka = vs
		}
	}
	if len(ov.Client) > 0 {
		var cs []string
		for _, c := range ov.Client {
			if _, _, err := ParseClient(c); err != nil {
				errorf("--client: %v", err)
				continue
			}
			cs = append(cs, c)
		}
		if len(cs) > 0 {
			d.Meta.Client = cs
		}
	}
	// count applies --nodes or --repeat (0: not given) within 1..limit.
	count := func(flag string, v, limit int, what string, set *int) {
		switch {
		case v < 0:
			errorf("--%s %d: must be positive", flag, v)
		case v > limit:
			errorf("--%s %d is too large: at most %d (%s)", flag, v, limit, what)
		case v > 0:
			*set = v
		}
	}
	count("nodes", ov.Nodes, MaxNodes, "the most nodes a cluster has", &d.Meta.Nodes)
	count("repeat", ov.Repeat, MaxRepeat, "the most runs of one runbook", &d.Meta.Repeat)
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
// error, since it would silently not run, and so is a fence never closed.
func splitMarkdown(s *source, masked []byte, body int) ([]Block, string, ErrorList) {
	root := goldmark.DefaultParser().Parse(text.NewReader(masked))
	sp := &splitter{s: s, masked: masked, next: body}
	title := ""
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && title == "" && h.Level == 1 && h.Lines().Len() > 0 {
			title = strings.TrimSpace(string(h.Lines().Value(masked)))
		}
		if fc, ok := n.(*ast.FencedCodeBlock); ok {
			sp.fenced(fc)
		}
	}
	sp.prose(sp.next, s.lines())
	return sp.blocks, title, append(sp.errs, nestedBlocks(root, s, masked)...)
}

// splitter collects the blocks of a document in file order.
type splitter struct {
	s      *source
	masked []byte
	blocks []Block
	errs   ErrorList
	next   int // first line not yet in a block
}

// prose adds lines [from, to) as a prose block, blank lines around trimmed.
func (sp *splitter) prose(from, to int) {
	s := sp.s
	for from < to && strings.TrimSpace(s.line(from)) == "" {
		from++
	}
	for to > from && strings.TrimSpace(s.line(to-1)) == "" {
		to--
	}
	if from < to {
		sp.blocks = append(sp.blocks, Block{
			Kind: Prose,
			Pos:  s.pos(from, 0),
			Text: strings.Join(s.lineRange(from, to), "\n") + "\n",
		})
	}
}

// fenced adds a top-level fenced code block, after the prose before it.
func (sp *splitter) fenced(fc *ast.FencedCodeBlock) {
	s, masked := sp.s, sp.masked
	off := fenceOffset(fc, s)
	if off < 0 {
		return
	}
	open := s.lineOf(off)
	if open < sp.next {
		return
	}
	sp.prose(sp.next, open)
	fence := s.line(open)[off-s.starts[open]:]
	fenceLen := len(fence) - len(strings.TrimLeft(fence, fence[:1]))
	sp.next = open + fc.Lines().Len() + 1 // after the last content line
	if sp.next < s.lines() && isClosingFence(s.line(sp.next), fence[0], fenceLen) {
		sp.next++
	} else {
		sp.errs = append(sp.errs, &Error{Pos: s.pos(open, off-s.starts[open]),
			Msg: fmt.Sprintf("this code block is never closed: it runs to the end of the file; end it with a %s line", fence[:fenceLen])})
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
	sp.blocks = append(sp.blocks, Block{
		Kind:  kind,
		Pos:   s.pos(open, off-s.starts[open]),
		Info:  info,
		Text:  string(fc.Lines().Value(masked)),
		lines: fc.Lines().Len(),
	})
}

// nestedBlocks reports kafka and sh blocks below the top level.
func nestedBlocks(root ast.Node, s *source, masked []byte) ErrorList {
	var errs ErrorList
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok || n.Parent() == root {
			return ast.WalkContinue, nil
		}
		lang := string(fc.Language(masked))
		if lang == "kafka" || lang == "sh" {
			off := max(fenceOffset(fc, s), 0)
			errs = append(errs, &Error{Pos: s.offPos(off),
				Msg: fmt.Sprintf("%s block inside a list or quote: it would not run; move it to the top level", lang)})
		}
		return ast.WalkContinue, nil
	})
	return errs
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
