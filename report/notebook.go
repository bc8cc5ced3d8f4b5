package report

import (
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// cell is one part of the notebook view: prose, or a step block with what
// its steps printed in each run.
type cell struct {
	Prose template.HTML // runbook.Block.HTML: rendered Markdown, raw HTML omitted
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

// layout lays the stored runbook source out with runbook.Layout, under the
// path the run was given, so that its steps' positions are the ones the
// engine recorded. Nothing is checked again: a runbook that no longer checks
// (the directive registry moved on since it ran) is laid out all the same.
func layout(r *results.Results, src []byte) runbook.Outline {
	path := r.Runbook.Path
	if path == "" {
		path = r.Runbook.File
	}
	return runbook.Layout(path, src)
}

// notebook lays the runbook out in cells from its Outline: the front
// matter, prose as written (rendered, raw HTML omitted), other code blocks as
// they are, and each kafka or sh block followed by what its steps printed in
// every run. A step's output belongs to the block holding a step at its
// position (StepOutput.Pos is the step's runbook.Pos); only when the Outline
// has no step there does StepOutput.Block, an index into Doc.Blocks (the
// same blocks), place it.
// Outputs of no block, such as the final read, end the notebook.
func notebook(doc runbook.Outline, r *results.Results) []cell {
	var cells []cell
	if fm := doc.FrontMatter; fm != "" {
		cells = append(cells, cell{Code: &codeCell{Lang: "yaml", Label: "front matter", Source: fm}})
	}
	owner := map[string]int{} // step position → index in doc.Blocks
	for i, b := range doc.Blocks {
		switch b.Kind {
		case runbook.Kafka:
			for _, st := range b.Steps {
				owner[st.Pos.String()] = i
			}
		case runbook.Shell:
			owner[b.Pos.String()] = i // the engine runs an sh block as one step at its fence
		}
	}
	blockOf := func(s results.StepOutput) int {
		if i, ok := owner[s.Pos]; ok {
			return i
		}
		if s.Block >= 0 && s.Block < len(doc.Blocks) && isStepBlock(doc.Blocks[s.Block].Kind) {
			return s.Block
		}
		return -1
	}
	for i, b := range doc.Blocks {
		switch b.Kind {
		case runbook.Prose:
			cells = append(cells, cell{Prose: b.HTML()}) // raw HTML omitted
		case runbook.Kafka, runbook.Shell:
			kind := b.Kind.String()
			cells = append(cells, cell{Code: &codeCell{Lang: kind, Label: kind, Source: strings.TrimRight(b.Text, "\n"),
				Runs: blockRuns(r, func(s results.StepOutput) bool { return blockOf(s) == i })}})
		default:
			cells = append(cells, cell{Prose: b.HTML()}) // the code, escaped
		}
	}
	outside := func(s results.StepOutput) bool { return blockOf(s) < 0 }
	var texts []string
	for _, run := range r.Runs {
		for _, s := range run.Steps {
			if outside(s) && !slices.Contains(texts, s.Text) {
				texts = append(texts, s.Text)
			}
		}
	}
	if len(texts) > 0 {
		cells = append(cells, cell{Code: &codeCell{Lang: "after", Label: "after the last block",
			Source: strings.Join(texts, "\n"), Runs: blockRuns(r, outside)}})
	}
	return cells
}

// stepIndex finds the runbook's steps by the position the engine recorded
// for them (runbook.Pos.String()).
type stepIndex map[string]runbook.Step

func newStepIndex(blocks []runbook.Block) stepIndex {
	idx := stepIndex{}
	for _, b := range blocks {
		for _, st := range b.Steps {
			idx[st.Pos.String()] = st
		}
	}
	return idx
}

// name names the read step of a snapshot tally: "line 40", or its
// recorded position when the runbook is not at hand.
func (idx stepIndex) name(run results.Run, t results.Tally) string {
	pos := readPos(run, t)
	if st, ok := idx[pos]; ok {
		return fmt.Sprintf("line %d", st.Pos.Line)
	}
	if pos != "" {
		return pos
	}
	return "a read step"
}

// readPos is the position of the read step that made a snapshot tally.
// Evidence of schema 1 did not record it: the read step of that topic
// running at the tally's time is the one.
func readPos(run results.Run, t results.Tally) string {
	if t.Pos != "" || t.Final {
		return t.Pos
	}
	for _, s := range run.Steps {
		if f := strings.Fields(s.Text); len(f) >= 2 && f[0] == "read" && f[1] == t.Label &&
			!t.At.Before(s.Start) && !t.At.After(s.End.Add(time.Second)) {
			return s.Pos
		}
	}
	return ""
}

func isStepBlock(k runbook.BlockKind) bool { return k == runbook.Kafka || k == runbook.Shell }

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
	for n, b := range blocks {
		label := fmt.Sprintf("block %d", n+1)
		if b < 0 {
			label = "after the last step"
		}
		cells = append(cells, cell{Code: &codeCell{Lang: "kafka", Label: label,
			Source: strings.Join(texts[b], "\n"), Runs: blockRuns(r, func(s results.StepOutput) bool { return s.Block == b })}})
	}
	return cells
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
			if s.Error != "" || (v.Expect != nil && !v.Expect.Held && !v.Expect.Undecided) {
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
