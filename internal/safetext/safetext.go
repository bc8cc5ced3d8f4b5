// Package safetext makes text that came from outside — runbook names, log
// lines, a stranger's evidence — safe to show where kafkabook shows it: on
// a terminal, in Markdown and in HTML. Each format's own escaping stays
// with its writer (html/template, the Markdown escaper); what they share
// is here: control characters that move a terminal's cursor or start a
// new line, bidirectional controls that make text read other than it is
// stored (U+202E shows "exe.txt" for "txt.exe"), and width.
package safetext

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// IsBidi reports whether r is a bidirectional formatting control: the
// marks (U+061C, U+200E, U+200F), embeddings and overrides (U+202A to
// U+202E) and isolates (U+2066 to U+2069).
func IsBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// isControl reports whether r is a C0 or C1 control, DEL, or a line or
// paragraph separator: what a terminal acts on, or what ends a line.
func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029
}

// shown is how a bidi control is shown: its code point, in brackets.
func shown(r rune) string { return fmt.Sprintf("[U+%04X]", r) }

// ShowBidi replaces every bidi control in s by its code point in
// brackets, so that a reader sees it instead of obeying it.
func ShowBidi(s string) string {
	if !strings.ContainsFunc(s, IsBidi) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if IsBidi(r) {
			b.WriteString(shown(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Page is ShowBidi over a rendered page (UTF-8 HTML): kafkabook's own
// templates hold no bidi control, so every one in a page came from the
// evidence, and is shown wherever it stands (text, attribute, data).
func Page(page []byte) []byte {
	if !bytes.ContainsFunc(page, IsBidi) {
		return page
	}
	out := make([]byte, 0, len(page)+64)
	for len(page) > 0 {
		r, n := utf8.DecodeRune(page)
		if IsBidi(r) {
			out = append(out, shown(r)...)
		} else {
			out = append(out, page[:n]...)
		}
		page = page[n:]
	}
	return out
}

// Line makes s one line of plain text: control characters (line breaks
// among them) become spaces and bidi controls are shown.
func Line(s string) string {
	return ShowBidi(strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s))
}

// IsLine reports whether s is one line of plain text already, which Line
// leaves as it is: no control character, no bidi control. Names that
// become directories or flag values must be.
func IsLine(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return isControl(r) || IsBidi(r) })
}

// Terminal is Line cut to at most width characters, its last an
// ellipsis when it was cut: what a terminal table shows of a value, so
// that no value moves the cursor, rings, or widens every row.
func Terminal(s string, width int) string {
	s = Line(s)
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	n := 0
	for i := range s {
		if n == width-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
