package report

import (
	"bytes"
	"fmt"
	"html/template"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/kafkabook/kafkabook/results"
)

// cell is one part of the notebook view: prose, or a step block with what
// its steps printed in each run.
type cell struct {
	Prose template.HTML // rendered Markdown, raw HTML omitted
	Code  *codeCell
}

type codeCell struct {
	Lang   string // "kafka", "sh" or "yaml" (front matter)
	Label  string
	Source string
	Runs   []blockRun // empty for front matter
}

// blockRun is what one block's steps printed in one run.
type blockRun struct {
	Run     int
	Open    bool // run 1 is shown open, the others folded
	Failed  bool // an expectation in this block failed, or a step erred
	Missing bool // the run never reached the block
	Steps   []stepView
}

type stepView struct {
	Pos        string
	Text       string
	Output     []string // the head of the output
	Omitted    int      // lines cut between Output and Tail
	Tail       []string
	Error      string
	Background bool
	Expect     *results.Expectation
}

// Output of one step beyond this many lines is cut in the middle; every line
// stays in results.json.
const (
	outputHead = 40
	outputTail = 10
)

// md renders prose: CommonMark plus GFM tables, never raw HTML (goldmark
// omits it and drops dangerous link targets unless told it is safe).
var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// isStepBlock tells whether a fenced block's language makes it a step block
// of the runbook language.
func isStepBlock(lang string) bool { return lang == "kafka" || lang == "sh" }

// notebook splits a runbook source into cells and attaches the step outputs
// of every run to their blocks. A step belongs to the block whose lines
// hold its position (StepOutput.Pos, file:line:col; an sh block's steps sit
// on its opening fence); only a step without a usable position falls back
// to StepOutput.Block, counted over the kafka and sh blocks.
func notebook(src []byte, r *results.Results) []cell {
	var cells []cell
	front, body := splitFrontMatter(src)
	// Lines of the file before body: positions count from the file's start.
	skipped := bytes.Count(src[:len(src)-len(body)], []byte("\n"))
	if front != "" {
		cells = append(cells, cell{Code: &codeCell{Lang: "yaml", Label: "front matter", Source: front}})
	}
	doc := md.Parser().Parse(text.NewReader(body))
	var prose bytes.Buffer
	flush := func() {
		if prose.Len() > 0 {
			cells = append(cells, cell{Prose: template.HTML(prose.String())})
			prose.Reset()
		}
	}
	block := 0
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if fc, ok := n.(*ast.FencedCodeBlock); ok {
			lang := string(fc.Language(body))
			if isStepBlock(lang) {
				flush()
				var sb strings.Builder
				for i := 0; i < fc.Lines().Len(); i++ {
					seg := fc.Lines().At(i)
					sb.Write(seg.Value(body))
				}
				lo, hi := fenceLines(fc, body, skipped)
				idx := block
				in := func(s results.StepOutput) bool {
					if line, ok := posLine(s.Pos); ok {
						return line >= lo && line <= hi
					}
					return s.Block == idx
				}
				cells = append(cells, cell{Code: &codeCell{Lang: lang, Label: lang, Source: strings.TrimRight(sb.String(), "\n"), Runs: blockRuns(r, in)}})
				block++
				continue
			}
		}
		if err := md.Renderer().Render(&prose, body, n); err != nil {
			fmt.Fprintf(&prose, "<p><em>(this part of the runbook could not be rendered: %s)</em></p>", template.HTMLEscapeString(err.Error()))
		}
	}
	flush()
	return cells
}

// notebookFromSteps stands in for the runbook when its stored copy is gone:
// one cell per block, its source rebuilt from the steps as written.
func notebookFromSteps(r *results.Results) []cell {
	texts := map[int][]string{}
	seen := map[string]bool{}
	for _, run := range r.Runs {
		for _, s := range run.Steps {
			if seen[s.Pos] {
				continue
			}
			seen[s.Pos] = true
			texts[s.Block] = append(texts[s.Block], s.Text)
		}
	}
	var blocks []int
	for b := range texts {
		blocks = append(blocks, b)
	}
	sort.Ints(blocks)
	var cells []cell
	for _, b := range blocks {
		idx := b
		cells = append(cells, cell{Code: &codeCell{Lang: "kafka", Label: fmt.Sprintf("block %d", b+1),
			Source: strings.Join(texts[b], "\n"), Runs: blockRuns(r, func(s results.StepOutput) bool { return s.Block == idx })}})
	}
	return cells
}

// splitFrontMatter separates a leading YAML front matter block.
func splitFrontMatter(src []byte) (front string, body []byte) {
	s := string(src)
	nl := "\n"
	if strings.HasPrefix(s, "---\r\n") {
		nl = "\r\n"
	} else if !strings.HasPrefix(s, "---\n") {
		return "", src
	}
	rest := s[3+len(nl):]
	for off := 0; off <= len(rest); {
		end := strings.Index(rest[off:], nl)
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if strings.TrimRight(line, " \t") == "---" {
			after := off + len(line)
			if end >= 0 {
				after += len(nl)
			}
			return strings.TrimRight(rest[:off], "\r\n"), []byte(rest[after:])
		}
		if end < 0 {
			break
		}
		off += end + len(nl)
	}
	return "", src
}

// fenceLines returns the 1-based file lines of a fenced block's opening and
// closing fences; skipped is the number of file lines before body.
func fenceLines(fc *ast.FencedCodeBlock, body []byte, skipped int) (lo, hi int) {
	lineAt := func(off int) int { return skipped + bytes.Count(body[:off], []byte("\n")) + 1 }
	n := fc.Lines().Len()
	if n == 0 {
		return -1, -1 // an empty block holds no steps
	}
	return lineAt(fc.Lines().At(0).Start) - 1, lineAt(fc.Lines().At(n-1).Start) + 1
}

// posLine reads the line of a "file:line:col" position.
func posLine(pos string) (int, bool) {
	i := strings.LastIndexByte(pos, ':')
	if i < 0 {
		return 0, false
	}
	j := strings.LastIndexByte(pos[:i], ':')
	if j < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(pos[j+1 : i])
	return n, err == nil && n > 0
}

// blockRuns collects, per run, the outputs of the steps that in selects.
func blockRuns(r *results.Results, in func(results.StepOutput) bool) []blockRun {
	var out []blockRun
	for i, run := range r.Runs {
		expects := map[string]*results.Expectation{}
		for j := range run.Expectations {
			expects[run.Expectations[j].Pos] = &run.Expectations[j]
		}
		br := blockRun{Run: run.Number, Open: i == 0}
		for _, s := range run.Steps {
			if !in(s) {
				continue
			}
			v := stepView{Pos: s.Pos, Text: s.Text, Error: s.Error, Background: s.Background, Expect: expects[s.Pos]}
			v.Output, v.Omitted, v.Tail = clip(s.Output)
			if s.Error != "" || (v.Expect != nil && !v.Expect.Held) {
				br.Failed = true
			}
			br.Steps = append(br.Steps, v)
		}
		br.Missing = len(br.Steps) == 0
		out = append(out, br)
	}
	return out
}

// clip keeps the head and tail of long output and counts what it cut.
func clip(lines []string) (head []string, omitted int, tail []string) {
	if len(lines) <= outputHead+outputTail+1 {
		return lines, 0, nil
	}
	return lines[:outputHead], len(lines) - outputHead - outputTail, lines[len(lines)-outputTail:]
}
