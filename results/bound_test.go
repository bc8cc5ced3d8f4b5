package results

import (
	"math"
	"testing"
)

// TestBoundOf checks the bounds against published values: the exact
// Clopper–Pearson intervals at 95% (as R's binom.test prints them), and
// at 0 of n and n of n the one-sided bounds, whose closed forms are
// 1 - 0.05^(1/n) and 0.05^(1/n).
func TestBoundOf(t *testing.T) {
	for _, c := range []struct {
		k, n   int64
		lo, hi float64
	}{
		{0, 4, 0, 1 - math.Pow(0.05, 1.0/4)},         // 0.527: "fewer than about half"
		{0, 20, 0, 1 - math.Pow(0.05, 1.0/20)},       // 0.139
		{0, 24000, 0, 1 - math.Pow(0.05, 1.0/24000)}, // 1.25e-4
		{20, 20, math.Pow(0.05, 1.0/20), 1},          // 0.861
		{1, 10, 0.002528579, 0.445016117},            // binom.test(1, 10)
		{5, 10, 0.1870860, 0.8129140},                // binom.test(5, 10)
		{3, 20, 0.03207094, 0.37892683},              // binom.test(3, 20)
		{10, 1000, 0.004802628, 0.018304857},         // binom.test(10, 1000)
	} {
		b := BoundOf(c.k, c.n)
		if math.Abs(b.Lo-c.lo) > 1e-6*max(1, c.lo*1e3) || math.Abs(b.Hi-c.hi) > 1e-6*max(1, c.hi*1e3) {
			t.Errorf("BoundOf(%d, %d) = [%.9g, %.9g], want [%.9g, %.9g]", c.k, c.n, b.Lo, b.Hi, c.lo, c.hi)
		}
	}
	if b := BoundOf(0, 0); b.Lo != 0 || b.Hi != 1 {
		t.Errorf("no trials bound %+v, want [0, 1]", b)
	}
	for _, c := range []struct {
		b    Bound
		want string
	}{
		{BoundOf(0, 20), "0 of 20 runs lost any: the rate is at most 13.9% (95% confidence)"},
		{BoundOf(0, 24000), "0 of 24000 runs lost any: the rate is at most 0.0125% (95% confidence)"},
		{BoundOf(3, 20), "3 of 20 runs lost any: the rate is between 3.21% and 37.9% (95% confidence)"},
		{BoundOf(4, 4), "4 of 4 runs lost any: the rate is at least 47.3% (95% confidence)"},
	} {
		if got := c.b.Words("runs", "lost any"); got != c.want {
			t.Errorf("Words = %q, want %q", got, c.want)
		}
	}
	if s := BoundOf(0, 4).Short(); s != "≤ 52.7%" {
		t.Errorf("Short = %q", s)
	}
}

// TestDecide: a rate is decided once its bound is on one side of the
// value. With no loss in any run, runs_lost < 20% at 95% is undecided up
// to 13 runs and held from the 14th (1 - 0.05^(1/14) = 19.3%); with a loss
// in every run, runs_lost < 20% fails from the 2nd (at least 22.4%).
func TestDecide(t *testing.T) {
	decidedAt := func(lost func(i int) bool, op string, x float64) (int, bool) {
		var runs []Run
		for i := 1; i <= 100; i++ {
			tl := Tally{Label: "t", Acked: 10, Lost: []Loss{}}
			if lost(i) {
				tl.Lost = []Loss{{ID: "m-001"}}
			}
			runs = append(runs, Run{Number: i, Final: []Tally{tl}})
			m := FindRateMeasure("runs_lost")
			k, n := m.Count(runs, "t")
			if held, decided := BoundAt(k, n, 0.95).Decide(op, x); decided {
				return i, held
			}
		}
		return 0, false
	}
	if n, held := decidedAt(func(int) bool { return false }, "<", 0.2); n != 14 || !held {
		t.Errorf("no losses: decided after %d runs, held %v; want 14, held", n, held)
	}
	if n, held := decidedAt(func(int) bool { return true }, "<", 0.2); n != 2 || held {
		t.Errorf("a loss in every run: decided after %d runs, held %v; want 2, failed", n, held)
	}
	if n, held := decidedAt(func(i int) bool { return i%2 == 0 }, ">", 0.1); held != true || n == 0 {
		t.Errorf("a loss in every other run, > 10%%: decided after %d runs, held %v; want held", n, held)
	}
	// lost_rate counts messages: 0 of 10 per run.
	runs := []Run{{Final: []Tally{{Label: "t", Acked: 10, Lost: []Loss{{ID: "m-001"}}}}}, {Final: []Tally{{Label: "t", Acked: 10, Lost: []Loss{}}}}}
	if k, n := FindRateMeasure("lost_rate").Count(runs, "t"); k != 1 || n != 20 {
		t.Errorf("lost_rate counts %d of %d, want 1 of 20", k, n)
	}
}
