package runbook

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Error is one problem in a runbook, at the position of the offending token.
// Line is the source line it is on, shown under the message with a caret.
type Error struct {
	Pos  Pos
	Msg  string
	Line string
}

// Error formats e as "file:line:col: msg".
func (e *Error) Error() string {
	return e.Pos.String() + ": " + e.Msg
}

// Caret returns the source line of e (leading blanks trimmed) and a caret
// under its column, both indented by four spaces, or "" when e has no line.
func (e *Error) Caret() string {
	if e.Pos.Line == 0 {
		return ""
	}
	line := strings.TrimRight(e.Line, "\r\n")
	trimmed := strings.TrimLeft(line, " \t")
	cut := len(line) - len(trimmed)
	col := e.Pos.Col - 1 - cut
	if col < 0 {
		col = 0
	}
	// Keep tabs in the caret line so it lines up in any tab width; count
	// runes, not bytes, for everything else.
	var pad strings.Builder
	for i, r := range trimmed {
		if i >= col {
			break
		}
		if r == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteByte(' ')
		}
	}
	if col > len(trimmed) {
		pad.WriteString(strings.Repeat(" ", col-len(trimmed)))
	}
	if !utf8.ValidString(trimmed) {
		trimmed = strings.ToValidUTF8(trimmed, "\uFFFD")
	}
	return "    " + trimmed + "\n    " + pad.String() + "^\n"
}

// ErrorList is every problem found in a runbook, in file order.
type ErrorList []*Error

// Error prints all errors, each as "file:line:col: message" followed by the
// source line and a caret under the column.
func (l ErrorList) Error() string {
	var b bytes.Buffer
	for _, e := range l {
		fmt.Fprintf(&b, "%s\n%s", e.Error(), e.Caret())
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// sort orders l by position and drops exact duplicates (the same message at
// the same place, as happens when a step is checked once per run).
func (l *ErrorList) sort() {
	sort.SliceStable(*l, func(i, j int) bool {
		a, b := (*l)[i].Pos, (*l)[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	type key struct {
		pos Pos
		msg string
	}
	seen := map[key]bool{}
	out := (*l)[:0]
	for _, e := range *l {
		k := key{e.Pos, e.Msg}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	*l = out
}
