package evidence

import (
	"bytes"
	"testing"

	"github.com/kafkabook/kafkabook/results"
)

// sweepSet is the acks fixture's experiment from as the combination
// combination's runs of topic t.
func sweepSet(t *testing.T, from, combination string) *results.Results {
	res, _ := load(t, fixture)
	res.Runbook.Sweep, res.Runbook.Combination = "acks", combination
	for i := range res.Runs {
		run := &res.Runs[i]
		keepTopics := run.Topics[:0]
		for _, tp := range run.Topics {
			if tp.Label == from {
				tp.Label = "t"
				keepTopics = append(keepTopics, tp)
			}
		}
		run.Topics = keepTopics
		keepFinal := run.Final[:0]
		for _, f := range run.Final {
			if f.Label == from {
				f.Label = "t"
				keepFinal = append(keepFinal, f)
			}
		}
		run.Final, run.Tallies = keepFinal, nil
	}
	return res
}

// TestSweep: a sweep of acks over the acks fixture's two experiments, one
// set given twice (its runs summed): acks=1 lost in every run, acks=all in
// none, so acks=all is the fix; it is the durable one, acks=1 the fast
// one, and both are marked as no other beats them on both.
func TestSweep(t *testing.T) {
	one, all := sweepSet(t, "acks1", "acks=1 mis=2"), sweepSet(t, "acksall", "acks=all mis=2")
	s := SweepOf("acks", []*results.Results{one, all, all}, []string{"a/1", "a/all", "a/all-2"})
	s.Link = "acks.settings.html"
	if len(s.Rows) != 2 {
		t.Fatalf("rows %+v, want 2", s.Rows)
	}
	r1, rall := s.Rows[0], s.Rows[1]
	if r1.Combination != "acks=1 mis=2" || r1.RunsLost.K != 4 || r1.RunsLost.N != 4 || r1.MessagesLost.K != 60 {
		t.Errorf("acks=1: %+v", r1)
	}
	if rall.RunsLost.K != 0 || rall.RunsLost.N != 8 || len(rall.Dirs) != 2 || rall.Runs != 8 {
		t.Errorf("acks=all over two sets: runs lost %d of %d, dirs %v, runs %d; want 0 of 8, two dirs", rall.RunsLost.K, rall.RunsLost.N, rall.Dirs, rall.Runs)
	}
	if !r1.Undominated || !rall.Undominated {
		t.Errorf("undominated: acks=1 %v, acks=all %v; want both (one faster, one durable)", r1.Undominated, rall.Undominated)
	}
	if len(s.Fixes) != 1 || s.Fixes[0].Change != "acks=1 → all" || s.Fixes[0].To != "acks=all mis=2" {
		t.Errorf("fixes %+v, want acks=1 → all", s.Fixes)
	}
	// With acks=all's four runs alone (at most 52.7% lose) the bounds
	// overlap acks=1's (at least 47.3%): the runs show no fix.
	if few := SweepOf("acks", []*results.Results{one, all}, []string{"a/1", "a/all"}); len(few.Fixes) != 0 {
		t.Errorf("fixes %+v from overlapping bounds, want none", few.Fixes)
	}
	var md bytes.Buffer
	if err := s.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	golden(t, "sweep.md", md.Bytes())
	var page bytes.Buffer
	if err := s.HTML(&page); err != nil {
		t.Fatal(err)
	}
	golden(t, "sweep.html", page.Bytes())
	if bytes.Contains(page.Bytes(), []byte("://")) || bytes.Contains(page.Bytes(), []byte("<script")) {
		t.Errorf("the settings page makes a request or runs a script:\n%s", page.String())
	}
}
