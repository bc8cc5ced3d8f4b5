package bisect

import (
	"context"
	"errors"
	"slices"
	"testing"
)

var releases = []string{"4.0.0", "4.0.1", "4.0.2", "4.1.0", "4.1.1", "4.1.2", "4.2.0", "4.2.1", "4.2.2", "4.3.0", "4.3.1", "4.4.0"}

// stub says "held" before the release at index change and "failed" from
// it on, and records the order it was asked in.
func stub(change int, asked *[]string) Probe {
	return func(_ context.Context, v string) (Outcome, error) {
		*asked = append(*asked, v)
		if slices.Index(releases, v) >= change {
			return "failed", nil
		}
		return "held", nil
	}
}

// TestSearchFindsTheChange: for every place the outcome can change, the
// search names the two releases on either side of it, probing the two
// ends and then at most ceil(log2(n-1)) releases between them.
func TestSearchFindsTheChange(t *testing.T) {
	for change := 1; change < len(releases); change++ {
		var asked []string
		r, err := Search(context.Background(), releases, stub(change, &asked))
		if err != nil {
			t.Fatal(err)
		}
		if !r.Changed || r.Before.Release != releases[change-1] || r.After.Release != releases[change] {
			t.Errorf("change at %s: got %+v", releases[change], r)
		}
		if r.Before.Outcome != "held" || r.After.Outcome != "failed" {
			t.Errorf("change at %s: outcomes %q, %q", releases[change], r.Before.Outcome, r.After.Outcome)
		}
		if asked[0] != "4.0.0" || asked[1] != "4.4.0" || len(asked) > 2+4 {
			t.Errorf("change at %s: probed %v, want the ends first and at most 4 more", releases[change], asked)
		}
	}
}

// TestSearchOrder: the probes' order, for a change at 4.2.1 (index 7):
// the ends, then halves 5, 8, 6, 7.
func TestSearchOrder(t *testing.T) {
	var asked []string
	r, err := Search(context.Background(), releases, stub(7, &asked))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"4.0.0", "4.4.0", "4.1.2", "4.2.2", "4.2.0", "4.2.1"}
	if !slices.Equal(asked, want) || len(r.Steps) != len(want) {
		t.Errorf("probed %v (steps %v), want %v", asked, r.Steps, want)
	}
}

// TestSearchNoChange: ends that agree end the search after two probes;
// a probe's error ends it with the release named.
func TestSearchNoChange(t *testing.T) {
	var asked []string
	r, err := Search(context.Background(), releases, stub(len(releases), &asked))
	if err != nil || r.Changed || len(asked) != 2 {
		t.Errorf("no change: %+v, %v, probed %v", r, err, asked)
	}
	_, err = Search(context.Background(), releases, func(_ context.Context, v string) (Outcome, error) {
		if v == "4.4.0" {
			return "", errors.New("cluster did not start")
		}
		return "held", nil
	})
	if err == nil || err.Error() != "on 4.4.0: cluster did not start" {
		t.Errorf("a failed probe: %v", err)
	}
}
