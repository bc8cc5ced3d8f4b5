package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnprovenFault checks that a run whose fault the cluster did not
// show landing is left out of the bounds over runs and that the page
// says why: the faults section marks the fault with what was read, and
// the summary's note names the run.
func TestUnprovenFault(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "acks", "runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	r := acksFixture(string(src))
	label := r.Labels()[0]
	before, _ := r.LossBounds(label)
	r.Runs[1].Faults[1].Unproven = true
	r.Runs[1].Faults[1].Observed = "k1: pid 4242 is still there (state S)"
	after, _ := r.LossBounds(label)
	if after.N != before.N-1 {
		t.Errorf("bound over %d runs with run 2's kill unproven; want %d", after.N, before.N-1)
	}
	page := renderSection(t, r, `<h2 id="summary">`, `<h2 id="charts">`)
	for _, want := range []string{
		"run 2 is left out: a fault of it did not show landing (see Faults)",
		"run 2: 7 fault events — not a test of its faults",
		"In this run the cluster did not show a fault landing: kill of k1 (k1: pid 4242 is still there (state S))",
		"<strong>not shown landing:</strong> k1: pid 4242 is still there (state S)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
