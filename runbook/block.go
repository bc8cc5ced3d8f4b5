package runbook

import "strconv"

// BlockKind says what a Block holds.
type BlockKind int

const (
	Prose BlockKind = iota // Markdown text between code blocks
	Kafka                  // a fenced block with info string "kafka": steps
	Shell                  // a fenced block with info string "sh"
	Code                   // any other fenced code block, shown as is
)

func (k BlockKind) String() string {
	switch k {
	case Prose:
		return "prose"
	case Kafka:
		return "kafka"
	case Shell:
		return "sh"
	case Code:
		return "code"
	}
	return "BlockKind(" + strconv.Itoa(int(k)) + ")"
}

// Block is one piece of the runbook in file order. Prose blocks hold the
// Markdown between code blocks as written (without leading and trailing blank
// lines); code blocks hold their content.
type Block struct {
	Kind  BlockKind
	Pos   Pos    // first line of the block (the opening fence for code blocks)
	Text  string // prose: the Markdown source; code blocks: the code content
	Info  string // fence info string, e.g. "kafka" or "sh"
	Steps []Step // Kafka blocks: one per non-empty, non-comment line

	lines int // number of content lines of a code block
}
