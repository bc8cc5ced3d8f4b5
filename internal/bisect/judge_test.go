package bisect

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/results"
)

// run is a complete run whose expectations have the given verdicts:
// 'h' held, 'f' failed, 'u' undecided.
func run(verdicts string) results.Run {
	r := results.Run{Complete: true}
	for i, v := range verdicts {
		r.Expectations = append(r.Expectations, results.Expectation{
			Expr: []string{"lost(a) == 0", "runs_lost(b)  <  20% at 95%"}[i], Held: v == 'h', Undecided: v == 'u'})
	}
	return r
}

// TestJudgeExpectations: a release fails when any run fails any
// expectation it follows, is undecided when a rate is, and holds only
// when every run holds; --expect follows one expectation, whatever the
// others do.
func TestJudgeExpectations(t *testing.T) {
	all, err := NewJudge("", "", []string{"lost(a) == 0", "runs_lost(b) < 20% at 95%"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	one, err := NewJudge("runs_lost(b) < 20%   at 95%", "", []string{"lost(a) == 0", "runs_lost(b) < 20% at 95%"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	incomplete := run("hh")
	incomplete.Complete = false
	for _, c := range []struct {
		runs     []results.Run
		all, one Outcome
	}{
		{[]results.Run{run("hh"), run("hh")}, "held", "held"},
		{[]results.Run{run("hh"), run("fh")}, "failed", "held"},
		{[]results.Run{run("hu")}, "undecided", "undecided"},
		// A rate over runs: the last run's verdict is the release's.
		{[]results.Run{run("hu"), run("hu"), run("hh")}, "held", "held"},
		{[]results.Run{run("hu"), run("hf")}, "failed", "failed"},
		{[]results.Run{run("hf"), run("hu")}, "undecided", "undecided"},
		{[]results.Run{run("fu"), run("hh")}, "failed", "held"},
		{[]results.Run{incomplete}, "failed", "held"},
	} {
		if got := all.Outcome(c.runs); got != c.all {
			t.Errorf("every expectation of %+v: %s, want %s", c.runs, got, c.all)
		}
		if got := one.Outcome(c.runs); got != c.one {
			t.Errorf("runs_lost(b) of %+v: %s, want %s", c.runs, got, c.one)
		}
	}
}

// TestNewJudgeRefuses what the runbook does not have, before anything
// runs, naming what it has.
func TestNewJudgeRefuses(t *testing.T) {
	exprs, topics := []string{"lost(a) == 0"}, []string{"a", "b"}
	for _, c := range []struct{ expect, elections, want string }{
		{"lost(a) == 1", "", `no expectation "lost(a) == 1": --expect takes one of its expect lines as written (lost(a) == 0)`},
		{"", "c", `no topic "c": --elections takes a topic it creates or produces to (a; b)`},
		{"lost(a) == 0", "a", "not both"},
	} {
		_, err := NewJudge(c.expect, c.elections, exprs, topics)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--expect %q --elections %q: got %v, want %q", c.expect, c.elections, err, c.want)
		}
	}
}

// published reads a trimmed published run from explain's test data.
func published(t *testing.T, name string) []results.Run {
	t.Helper()
	f, err := os.Open("../explain/testdata/" + name + ".json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var r results.Results
	if err := json.NewDecoder(zr).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r.Runs
}

// TestJudgeElections: the last replica standing's elections on published
// runs, clean on 4.0.0 and KIP-966's fallback on 4.1.0 and 4.4.0; and
// explain's causes that differ between 4.0.0 and 4.1.0.
func TestJudgeElections(t *testing.T) {
	j, err := NewJudge("", "plast", nil, []string{"pall", "plast"})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]Outcome{
		"power-loss-4.0.0": "clean",
		"power-loss-4.1.0": "last-known-leader",
		"power-loss-4.4.0": "last-known-leader",
	} {
		if got := j.Outcome(published(t, name)); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	if got := j.Outcome([]results.Run{{Complete: true}}); got != "none" {
		t.Errorf("a run without elections: %s, want none", got)
	}
	before, after := CauseDifference(published(t, "power-loss-4.0.0"), published(t, "power-loss-4.1.0"))
	wantBefore := "pall lost: clean election of kN after power loss of kN, kN, kN | plast lost: clean election of kN after kill of kN, kN and power loss of kN"
	wantAfter := "pall lost: last-known-leader election of kN (logged as unclean) after power loss of kN, kN, kN | plast lost: last-known-leader election of kN (logged as unclean) after kill of kN, kN and power loss of kN"
	if strings.Join(before, " | ") != wantBefore || strings.Join(after, " | ") != wantAfter {
		t.Errorf("cause difference:\n only on 4.0.0: %q\n only on 4.1.0: %q", before, after)
	}
}
