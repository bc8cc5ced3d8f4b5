package report

import (
	"fmt"
	"math"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// The time charts never draw one point a message: every run's ledger is
// cut into intervals of one width (results.Topic.Series), the same for
// every run and experiment of a page, and each interval becomes one point.
// The latency chart draws the highest ack latency of the messages meant to
// be sent in an interval, which is exact: a spike is never averaged away,
// whatever the number of messages. The throughput chart sums the
// acknowledgements that arrived in groups of consecutive intervals. A page
// costs a few dozen bytes an interval, at a thousand messages or a
// million.

// Interval budgets: about targetIntervals latency points per run and
// experiment, at most latencyPoints over the chart (at least
// minSeriesPoints each), and about throughputIntervals throughput points.
const (
	targetIntervals     = 1000
	latencyPoints       = 40000
	minSeriesPoints     = 200
	throughputIntervals = 200
	minThroughputWidth  = 100 * time.Millisecond
	gapBreak            = time.Second // no acknowledged message for this long breaks a latency line
)

// timeline is the interval series of every run and experiment of a page.
type timeline struct {
	Width  time.Duration // of a latency interval
	Group  int           // latency intervals summed into a throughput interval
	Series []expSeries   // by run, then by experiment in label order
	Span   time.Duration // the common x range (longestRun)
	// The messages per latency interval that held any: the most and the
	// mean, for the chart's note.
	MostSent int
	MeanSent float64
}

// expSeries is one experiment in one run: its topics' intervals merged.
type expSeries struct {
	Run     int // index in Results.Runs
	Label   string
	LabelNo int // index in the page's labels, for its colour
	Buckets []results.Bucket
}

// ThroughputWidth is the width of a throughput interval.
func (tl timeline) ThroughputWidth() time.Duration { return tl.Width * time.Duration(tl.Group) }

// newTimeline cuts every ledger of r into intervals.
func newTimeline(r *results.Results, labels []string) timeline {
	span := time.Duration(float64(longestRun(r)) * float64(time.Second))
	if span <= 0 {
		span = time.Second
	}
	n := 0
	for _, run := range r.Runs {
		for _, l := range labels {
			if hasMessages(run, l) {
				n++
			}
		}
	}
	per := targetIntervals
	if n > 0 {
		per = min(targetIntervals, max(minSeriesPoints, latencyPoints/n))
	}
	tl := timeline{Width: niceCeil(span / time.Duration(per)), Span: span}
	tw := max(niceCeil(span/throughputIntervals), minThroughputWidth)
	tl.Group = max(1, int(math.Round(float64(tw)/float64(tl.Width))))

	nonEmpty, sent := 0, 0
	for ri, run := range r.Runs {
		for li, l := range labels {
			if !hasMessages(run, l) {
				continue
			}
			var merged []results.Bucket
			for _, t := range run.Topics {
				if t.Label != l || t.Len() == 0 {
					continue
				}
				merged = mergeBuckets(merged, t.Series(run.Start, run.Start.Add(span), tl.Width))
			}
			for _, b := range merged {
				if b.Sent > 0 {
					nonEmpty++
					sent += b.Sent
					tl.MostSent = max(tl.MostSent, b.Sent)
				}
			}
			tl.Series = append(tl.Series, expSeries{Run: ri, Label: l, LabelNo: li, Buckets: merged})
		}
	}
	if nonEmpty > 0 {
		tl.MeanSent = float64(sent) / float64(nonEmpty)
	}
	return tl
}

// hasMessages reports whether the run sent anything for label.
func hasMessages(run results.Run, label string) bool {
	for _, t := range run.Topics {
		if t.Label == label && t.Len() > 0 {
			return true
		}
	}
	return false
}

// mergeBuckets adds the intervals b (of another topic of the same
// experiment) into a, interval by interval.
func mergeBuckets(a, b []results.Bucket) []results.Bucket {
	if a == nil {
		return b
	}
	for i := range a {
		if i >= len(b) {
			break
		}
		x, y := &a[i], b[i]
		x.Acked += y.Acked
		x.Failed += y.Failed
		x.Unknown += y.Unknown
		x.Sent += y.Sent
		if y.MaxLatency > x.MaxLatency {
			x.MaxLatency = y.MaxLatency
		}
		if y.MinLatency > 0 && (x.MinLatency == 0 || y.MinLatency < x.MinLatency) {
			x.MinLatency = y.MinLatency
		}
	}
	return a
}

// niceCeil rounds d up to 1, 2 or 5 times a power of ten, at least 1 ms.
func niceCeil(d time.Duration) time.Duration {
	if d <= time.Millisecond {
		return time.Millisecond
	}
	for p := time.Millisecond; ; p *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if m*p >= d {
				return m * p
			}
		}
	}
}

// widthText says an interval's width for people: "50 ms", "2 s".
func widthText(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%g s", d.Seconds())
}

// palette colours experiments alike in every run (echarts' default order).
var palette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}

func labelColor(i int) string { return palette[i%len(palette)] }

// latencyPointsOf is an experiment's latency line: the highest latency of
// each interval that had an acknowledged message, in milliseconds at the
// interval's middle, broken (a null) where nothing was acknowledged for
// longer than gapBreak.
func latencyPointsOf(tl timeline, s expSeries) [][2]num {
	var out [][2]num
	brk := max(gapBreak, 2*tl.Width)
	lastX := time.Duration(-1)
	for i, b := range s.Buckets {
		if b.MaxLatency <= 0 {
			continue
		}
		x := time.Duration(i)*tl.Width + tl.Width/2
		if lastX >= 0 && x-lastX > brk {
			out = append(out, [2]num{round(seconds(x), 3), num(math.NaN())})
		}
		out = append(out, [2]num{round(seconds(x), 3), round(math.Max(millis(b.MaxLatency), 0.001), 3)})
		lastX = x
	}
	return out
}

// throughputPointsOf is an experiment's throughput: acknowledgements per
// second in each throughput interval, from the first interval in which it
// sent or heard anything to the last (zero in between: a stall shows as
// one), at the interval's middle.
func throughputPointsOf(tl timeline, s expSeries) [][2]num {
	g := tl.Group
	n := (len(s.Buckets) + g - 1) / g
	first, last := -1, -1
	sums := make([]int, n)
	for i, b := range s.Buckets {
		if b.Sent+b.Acked+b.Failed+b.Unknown > 0 {
			if first < 0 {
				first = i / g
			}
			last = i / g
		}
		sums[i/g] += b.Acked
	}
	if first < 0 {
		return nil
	}
	w := tl.ThroughputWidth()
	out := make([][2]num, 0, last-first+1)
	for k := first; k <= last; k++ {
		x := time.Duration(k)*w + w/2
		out = append(out, [2]num{round(seconds(x), 3), round(float64(sums[k])/w.Seconds(), 1)})
	}
	return out
}
