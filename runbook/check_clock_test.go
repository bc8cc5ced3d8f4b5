package runbook

import (
	"strings"
	"testing"
)

// TestCheckClock: check refuses clock, once, where the caller says the
// machine lacks libfaketime, and builds each step's nodes and jump.
func TestCheckClock(t *testing.T) {
	src := []byte("```kafka\ntopic create t\nclock k1 leader(t) +1h30m\nclock k2 -30m\nclock k1 0\nclock k3 --reset\n```\n")
	doc, err := LoadFor("c.md", src, Overrides{}, Capabilities{})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.NeedsClock() || doc.NeedsLayer() {
		t.Errorf("NeedsClock %v, NeedsLayer %v", doc.NeedsClock(), doc.NeedsLayer())
	}
	var got []string
	for _, s := range doc.Blocks[0].Steps[1:] {
		c := s.Action.(Clock)
		got = append(got, strings.Join([]string{c.Written, c.Jump.String(), strings.Repeat("t", len(c.Targets))}, " "))
	}
	if want := "+1h30m 1h30m0s tt, -30m -30m0s t, reset 0s t, reset 0s t"; strings.Join(got, ", ") != want {
		t.Errorf("built %q, want %q", strings.Join(got, ", "), want)
	}
	_, err = LoadFor("c.md", src, Overrides{}, Capabilities{ClockMissing: "libfaketime 0.9.10 (Debian's faketime package: apt-get install faketime)"})
	if err == nil || strings.Count(err.Error(), "this machine lacks libfaketime 0.9.10") != 1 || !strings.Contains(err.Error(), "c.md:3:1:") {
		t.Errorf("without libfaketime: %v, want one error at the first clock step", err)
	}
}
