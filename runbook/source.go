package runbook

import (
	"sort"
	"strings"
)

// source is a runbook file with its line starts, to turn byte offsets into
// positions and positions back into lines.
type source struct {
	path   string
	src    []byte
	text   string // src as a string, once: lines are slices of it, not copies
	starts []int  // byte offset of each line
}

func newSource(path string, src []byte) *source {
	s := &source{path: path, src: src, text: string(src), starts: []int{0}}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			s.starts = append(s.starts, i+1)
		}
	}
	if len(src) == 0 {
		s.starts = nil
	}
	return s
}

func (s *source) lines() int { return len(s.starts) }

// line returns line i (0-based) without its newline.
func (s *source) line(i int) string {
	if i < 0 || i >= len(s.starts) {
		return ""
	}
	end := len(s.text)
	if i+1 < len(s.starts) {
		end = s.starts[i+1]
	}
	return strings.TrimSuffix(s.text[s.starts[i]:end], "\n")
}

// lineRange returns lines [from, to) (0-based).
func (s *source) lineRange(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, s.line(i))
	}
	return out
}

// lineOf returns the 0-based line holding byte offset off.
func (s *source) lineOf(off int) int {
	return max(0, sort.SearchInts(s.starts, off+1)-1)
}

// pos returns the position of byte col (0-based) of line i (0-based).
func (s *source) pos(i, col int) Pos { return Pos{s.path, i + 1, col + 1} }

// offPos returns the position of byte offset off.
func (s *source) offPos(off int) Pos {
	i := s.lineOf(off)
	start := 0
	if i < len(s.starts) {
		start = s.starts[i]
	}
	return s.pos(i, off-start)
}
