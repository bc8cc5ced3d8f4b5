package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineAndTerminal(t *testing.T) {
	for _, c := range []struct{ in, line string }{
		{"plain", "plain"},
		{"a\x1b[2Jb\x07c\rd\ne", "a [2Jb c d e"},
		{"x\u0085y\u2028z\x7f", "x y z "},
		{"txt\u202eexe.sh", "txt[U+202E]exe.sh"},
		{"\u2066a\u2069", "[U+2066]a[U+2069]"},
	} {
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if IsLine(c.in) != (c.in == c.line) {
			t.Errorf("IsLine(%q) = %v, want %v", c.in, IsLine(c.in), c.in == c.line)
		}
	}
	long := strings.Repeat("é", 1<<20)
	got := Terminal(long, 40)
	if utf8.RuneCountInString(got) != 40 || !strings.HasSuffix(got, "…") {
		t.Errorf("Terminal of a 1 MiB title: %d characters, want 40 ending in …", utf8.RuneCountInString(got))
	}
	if got := Terminal("short", 40); got != "short" {
		t.Errorf("Terminal(short) = %q", got)
	}
}

func TestPage(t *testing.T) {
	in := []byte("<td>gpj.\u202eexe</td><td title=\"\u200f\">ok</td>")
	want := "<td>gpj.[U+202E]exe</td><td title=\"[U+200F]\">ok</td>"
	if got := string(Page(in)); got != want {
		t.Errorf("Page = %q, want %q", got, want)
	}
	clean := []byte("<p>nothing to show</p>")
	if got := Page(clean); &got[0] != &clean[0] {
		t.Error("Page copied a page without bidi controls")
	}
}
