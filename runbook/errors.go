package runbook

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is one problem in a runbook, at the position of the offending token.
// Line is the source line it is on, shown under the message with a caret.
type Error struct {
	Pos  Pos
	Msg  string
	Line string
}

// Error formats e as "file:line:col: msg", with control characters in
// msg (which may quote the runbook) shown escaped and a long msg cut.
func (e *Error) Error() string {
	return e.Pos.String() + ": " + escapeControls(shorten(e.Msg))
}

// maxMsg is the longest message Error shows whole; a longer one quotes
// something long from the runbook, and keeps its start and its end.
const maxMsg = 400

// shorten cuts the middle out of a message longer than maxMsg bytes.
func shorten(msg string) string {
	if len(msg) <= maxMsg {
		return msg
	}
	head, tail := msg[:maxMsg*5/8], msg[len(msg)-maxMsg*3/8:]
	return strings.ToValidUTF8(head, "") + "…" + strings.ToValidUTF8(tail, "")
}

// Warning formats e as a warning, "file:line:col: warning: msg" escaped
// and cut like Error, followed by its caret.
func (e *Error) Warning() string {
	return e.Pos.String() + ": warning: " + escapeControls(shorten(e.Msg)) + "\n" + e.Caret()
}

// escapeControls returns s with what cells escapes escaped.
func escapeControls(s string) string {
	var b strings.Builder
	for _, c := range cells(s) {
		b.WriteString(c.text)
	}
	return b.String()
}

// How much of a problem ErrorList.Error and Caret show, so that a hostile
// runbook cannot flood a terminal: the first MaxShown errors, each echoing
// at most maxEcho columns of its line.
const (
	MaxShown = 50
	maxEcho  = 200
)

// Caret returns the source line of e (leading blanks trimmed) and a caret
// under its column, both indented by four spaces, or "" when e has no line.
// Control characters and bytes that are not UTF-8 are shown escaped, and a
// long line is cut to maxEcho columns around the caret.
func (e *Error) Caret() string {
	if e.Pos.Line == 0 {
		return ""
	}
	line := strings.TrimRight(e.Line, "\r\n")
	trimmed := strings.TrimLeft(line, " \t")
	col := max(0, e.Pos.Col-1-(len(line)-len(trimmed)))
	text, pad := echo(trimmed, col)
	return "    " + text + "\n    " + pad + "^\n"
}

// cell is one character of an echoed line as shown, at byte off of the line.
type cell struct {
	text  string
	off   int
	width int
}

// cells splits line into what each character shows as: itself, a tab, or
// an escape for a control or format character or a byte that is not UTF-8.
func cells(line string) []cell {
	var out []cell
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRuneInString(line[i:])
		t := line[i : i+n]
		switch {
		case r == utf8.RuneError && n == 1:
			t = fmt.Sprintf(`\x%02x`, line[i])
		case r == '\t':
		case r < 0x80 && unicode.IsControl(r):
			t = fmt.Sprintf(`\x%02x`, r)
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			t = fmt.Sprintf(`\u%04x`, r)
		}
		out = append(out, cell{text: t, off: i, width: utf8.RuneCountInString(t)})
		i += n
	}
	return out
}

// echo returns line as shown under an error and the padding that puts a
// caret under byte col: tabs are kept in the padding so that it lines up
// in any tab width, escapes count as wide as they show.
func echo(line string, col int) (text, pad string) {
	cs := cells(line)
	caret, total := 0, 0 // columns before the caret, and in all
	for _, c := range cs {
		if c.off < col {
			caret += c.width
		}
		total += c.width
	}
	if col > len(line) {
		caret += col - len(line)
	}
	from, to := 0, total
	if total > maxEcho {
		from = max(0, min(caret-maxEcho/2, total-maxEcho))
		to = from + maxEcho
	}
	var tb, pb strings.Builder
	if from > 0 {
		tb.WriteString("…")
		pb.WriteByte(' ')
	}
	w := 0
	for _, c := range cs {
		if w >= from && w+c.width <= to {
			tb.WriteString(c.text)
			if c.off < col {
				pb.WriteString(padding(c))
			}
		}
		w += c.width
	}
	if to < total {
		tb.WriteString("…")
	}
	if col > len(line) {
		pb.WriteString(strings.Repeat(" ", col-len(line)))
	}
	return tb.String(), pb.String()
}

// padding is what stands under cell c in the caret line.
func padding(c cell) string {
	if c.text == "\t" {
		return "\t"
	}
	return strings.Repeat(" ", c.width)
}

// ErrorList is every problem found in a runbook, in file order.
type ErrorList []*Error

// Error prints the first MaxShown errors, each as "file:line:col: message"
// followed by the source line and a caret under the column, then how many
// more there are.
func (l ErrorList) Error() string {
	var b bytes.Buffer
	for i, e := range l {
		if i == MaxShown {
			fmt.Fprintf(&b, "... and %d more errors (the first %d are shown)\n", len(l)-MaxShown, MaxShown)
			break
		}
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

// at reports whether an error is already reported at p.
func (l ErrorList) at(p Pos) bool {
	return slices.ContainsFunc(l, func(e *Error) bool { return e.Pos == p })
}
