package results

import (
	"fmt"
	"math"
	"strconv"
)

// A count out of a total (runs that lost, messages lost of those
// acknowledged) is worth its bound: 0 losses in 4 runs says only that
// fewer than about half of such runs lose. Bound gives the exact binomial
// (Clopper–Pearson) bound at 95% confidence, and says it in words.

// Confidence is the confidence level of every bound kafkabook states.
const Confidence = 0.95

// Bound is what k events out of n trials say of the rate p of the
// event, at Confidence: Lo ≤ p ≤ Hi. With 0 events only an upper bound
// is meaningful, with n of n only a lower one, and each is then the
// one-sided bound at Confidence (0 of 20: p at most 13.9%); otherwise
// [Lo, Hi] is the two-sided Clopper–Pearson interval.
type Bound struct {
	K    int64   `json:"k"`
	N    int64   `json:"n"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	Conf float64 `json:"confidence"`
}

// BoundOf is the bound of k events in n trials at Confidence; n 0 bounds
// nothing (0 to 1).
func BoundOf(k, n int64) Bound { return BoundAt(k, n, Confidence) }

// BoundAt is BoundOf at the confidence conf (0.95 for 95%).
func BoundAt(k, n int64, conf float64) Bound {
	b := Bound{K: k, N: n, Lo: 0, Hi: 1, Conf: conf}
	switch {
	case n <= 0 || k < 0 || k > n:
		return b
	case k == 0:
		b.Hi = betaQuantile(conf, 1, float64(n))
	case k == n:
		b.Lo = betaQuantile(1-conf, float64(n), 1)
	default:
		a := (1 - conf) / 2
		b.Lo = betaQuantile(a, float64(k), float64(n-k+1))
		b.Hi = betaQuantile(1-a, float64(k+1), float64(n-k))
	}
	return b
}

// Words says the bound to a reader, for what the trials are ("runs",
// "acknowledged messages") and what the event is ("lost any", "lost"):
// "0 of 20 runs lost any: the rate is at most 13.9% (95% confidence)".
func (b Bound) Words(trials, event string) string {
	if b.N <= 0 {
		return fmt.Sprintf("no %s: nothing is known of how often they %s", trials, event)
	}
	head := fmt.Sprintf("%d of %d %s %s", b.K, b.N, trials, event)
	conf := "(" + strconv.FormatFloat(b.Conf*100, 'g', 4, 64) + "% confidence)"
	switch {
	case b.K == 0:
		return fmt.Sprintf("%s: the rate is at most %s %s", head, Percent(b.Hi), conf)
	case b.K == b.N:
		return fmt.Sprintf("%s: the rate is at least %s %s", head, Percent(b.Lo), conf)
	}
	return fmt.Sprintf("%s: the rate is between %s and %s %s", head, Percent(b.Lo), Percent(b.Hi), conf)
}

// Short is the bound in a table cell: "≤ 13.9%", "≥ 86.1%", "4.2–34%".
func (b Bound) Short() string {
	switch {
	case b.N <= 0:
		return ""
	case b.K == 0:
		return "≤ " + Percent(b.Hi)
	case b.K == b.N:
		return "≥ " + Percent(b.Lo)
	}
	return Percent(b.Lo) + "–" + Percent(b.Hi)
}

// Percent writes a rate with three significant digits, in percent while
// that reads well and as a power of ten below 0.01%: 53.3%, 1.25e-4.
func Percent(p float64) string {
	switch {
	case p == 0:
		return "0%"
	case p < 1e-4:
		return strconv.FormatFloat(p, 'e', 2, 64)
	}
	return strconv.FormatFloat(p*100, 'g', 3, 64) + "%"
}

// betaQuantile is the x with I_x(a, b) = q: the q-quantile of the
// beta(a, b) distribution, found by bisection (I_x is increasing in x),
// to well below the printed precision.
func betaQuantile(q, a, b float64) float64 {
	lo, hi := 0.0, 1.0
	for range 200 {
		mid := (lo + hi) / 2
		if regIncBeta(mid, a, b) < q {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-15 {
			break
		}
	}
	return (lo + hi) / 2
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), the
// beta(a, b) distribution's CDF at x: the binomial tails are its values
// (P(X ≥ k) for X ~ Bin(n, p) is I_p(k, n-k+1)). It is evaluated with
// its continued fraction, on the side of the symmetry
// I_x(a, b) = 1 - I_{1-x}(b, a) where that converges fast.
func regIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	case x > (a+1)/(a+b+2):
		return 1 - regIncBeta(1-x, b, a)
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(a*math.Log(x) + b*math.Log1p(-x) + lab - la - lb)
	return front * betaFraction(x, a, b) / a
}

// betaFraction is the continued fraction of the incomplete beta
// function, 1/(1+ d1/(1+ d2/(1+ ...))) with
// d(2m+1) = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1)) and
// d(2m) = m(b-m)x / ((a+2m-1)(a+2m)), evaluated by the modified Lentz
// method.
func betaFraction(x, a, b float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	guard := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/guard(1-(a+b)*x/(a+1))
	f := d
	for m := 1.0; m < 10000; m++ {
		// The even step, d(2m), then the odd one, d(2m+1).
		for _, num := range []float64{
			m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m)),
			-(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1)),
		} {
			d = 1 / guard(1+num*d)
			c = guard(1 + num/c)
			f *= c * d
		}
		if math.Abs(c*d-1) < eps {
			break
		}
	}
	return f
}

// LossBounds are the bounds of label's losses over the runs whose final
// read judged it and whose faults all landed (lossCounts): the runs that
// lost any acknowledged message, and the acknowledged messages lost.
func (r *Results) LossBounds(label string) (runs, messages Bound) {
	c := lossCounts(r.Runs, label)
	return BoundOf(c.lostRuns, c.runs), BoundOf(c.lost, c.acked)
}

// Decide says whether the rate the bound is of satisfies "rate OP x": held
// when the bound proves it (for < and <=, its upper end is below x; for >
// and >=, its lower end is above), failed when it proves the opposite,
// and undecided (decided false) while the interval straddles x: more runs
// decide it.
func (b Bound) Decide(op string, x float64) (held, decided bool) {
	switch op {
	case "<":
		return b.Hi < x, b.Hi < x || b.Lo >= x
	case "<=":
		return b.Hi <= x, b.Hi <= x || b.Lo > x
	case ">":
		return b.Lo > x, b.Lo > x || b.Hi <= x
	case ">=":
		return b.Lo >= x, b.Lo >= x || b.Hi < x
	}
	return false, false
}

// RateMeasure is a function of expect expressions over every run so far,
// rather than one: the rate of an event, bounded at a confidence
// (expect runs_lost(t) < 5% at 95%).
type RateMeasure struct {
	Name, Summary string
	// Trials and Event name what is counted, for Words.
	Trials, Event string
	// Count is how many of the trials the event happened in, over runs.
	Count func(runs []Run, label string) (k, n int64)
}

// RateMeasures are the rate functions, in the order of the reference.
var RateMeasures = []RateMeasure{
	{Name: "runs_lost", Summary: "the share of the runs so far whose final read found any acknowledged message of the topic lost, bounded at the expectation's confidence",
		Trials: "runs", Event: "lost any", Count: func(runs []Run, label string) (int64, int64) {
			c := lossCounts(runs, label)
			return c.lostRuns, c.runs
		}},
	{Name: "lost_rate", Summary: "the share of acknowledged messages of the topic lost over the runs so far, bounded at the expectation's confidence (one fault loses a run's messages together: runs_lost is the sounder bound)",
		Trials: "acknowledged messages", Event: "lost", Count: func(runs []Run, label string) (int64, int64) {
			c := lossCounts(runs, label)
			return c.lost, c.acked
		}},
}

// FindRateMeasure returns the rate function named name, or nil.
func FindRateMeasure(name string) *RateMeasure {
	for i := range RateMeasures {
		if RateMeasures[i].Name == name {
			return &RateMeasures[i]
		}
	}
	return nil
}

// losses counts a topic's losses over runs' final reads.
type losses struct{ runs, lostRuns, acked, lost int64 }

// lossCounts counts over the runs that tested their faults: a run with a
// fault the cluster did not show landing (Run.Unproven) is left out, its
// losses and its clean reads alike, since it is no test of that fault.
func lossCounts(runs []Run, label string) losses {
	var c losses
	for _, run := range runs {
		if len(run.Unproven()) > 0 {
			continue
		}
		for _, t := range run.Final {
			if t.Label != label {
				continue
			}
			c.runs++
			c.acked += int64(t.Acked)
			c.lost += int64(len(t.Lost))
			if len(t.Lost) > 0 {
				c.lostRuns++
			}
		}
	}
	return c
}
