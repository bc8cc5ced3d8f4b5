package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/kafkabook/kafkabook/results"
)

// chart is one chart of a page: a div and the echarts options that the
// page's init script draws into it. Options travel through html/template's
// JSON escaping inside a data island; they never become code.
type chart struct {
	ID      string
	Title   string
	Note    string
	Height  int
	Options map[string]any
}

// num is a float64 that marshals in its shortest form; the per-message
// series are most of a page's bytes.
type num float64

func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'f', -1, 64), nil
}

// round keeps d decimal places.
func round(f float64, d int) num {
	p := math.Pow10(d)
	return num(math.Round(f*p) / p)
}

func seconds(d time.Duration) float64 { return d.Seconds() }
func millis(d time.Duration) float64  { return float64(d) / float64(time.Millisecond) }

// sampledSeries adds echarts' sampling option, which go-echarts lacks, to a
// go-echarts series.
type sampledSeries struct {
	charts.SingleSeries
	Sampling string    `json:"sampling,omitempty"`
	MarkArea *markArea `json:"markArea,omitempty"` // these two take the place of go-echarts' own
	MarkLine *markLine `json:"markLine,omitempty"`
}

// rectChart is what the go-echarts chart types used here have in common.
type rectChart interface {
	Validate()
	JSON() map[string]any
}

// gridBox is the room around a chart's plot, in pixels, inside which echarts
// (6 and later: outerBoundsMode "same", outerBoundsContain "all") fits the
// axis labels and the axis names too, so no name is ever clipped.
type gridBox struct{ Top, Right, Bottom, Left int }

var defaultGrid = gridBox{Top: 36, Right: 24, Bottom: 8, Left: 12}

// options takes a go-echarts chart's options, with its series replaced by
// series (which may carry sampling, compact data and marks) and its grid by
// g.
func options(c rectChart, series []sampledSeries, g gridBox) map[string]any {
	c.Validate()
	o := c.JSON()
	if series != nil {
		o["series"] = series
	}
	o["grid"] = map[string]any{"left": g.Left, "right": g.Right, "top": g.Top, "bottom": g.Bottom,
		"outerBoundsMode": "same", "outerBoundsContain": "all"}
	return o
}

// baseOpts are the options every chart shares.
func baseOpts() []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{}),
		charts.WithAnimation(false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "0"}),
	}
}

// categoryX is a category x axis named in the middle, below its labels.
func categoryX(name string) opts.XAxis {
	return opts.XAxis{Type: "category", Name: name, NameLocation: "middle", NameGap: 30}
}

// timeX is the shared time axis of the per-run charts.
func timeX(r *results.Results) opts.XAxis {
	return opts.XAxis{Type: "value", Name: "seconds since the run began", NameLocation: "middle", NameGap: 30, Min: 0, Max: longestRun(r)}
}

// outcomeKinds are the parts of an outcome bar, bottom up, with colours.
var outcomeKinds = []struct{ Name, Color string }{
	{"present", "#43a047"},
	{"duplicated", "#8e24aa"},
	{"lost", "#e53935"},
	{"unseen", "#ffb300"},
	{"failed", "#757575"},
	{"unknown", "#90a4ae"},
}

// fate splits the ledger of one experiment in one run by what became of
// each message, every message in exactly one part: acknowledged and found
// once, found more than once, lost, unseen; sends that failed or ended
// unknown, whether found or not (the summary says which).
type fate struct{ Present, Duplicated, Lost, Unseen, Failed, Unknown int }

func fateOf(run results.Run, label string, t results.Tally) fate {
	dup := run.CountAcked(label, t.DuplicateIDs())
	return fate{Present: t.Present - dup, Duplicated: dup, Lost: len(t.Lost), Unseen: len(t.Unseen), Failed: t.Failed, Unknown: t.Unknown}
}

// outcomeChart: what became of every message, per experiment and run, as
// stacked bars.
func outcomeChart(r *results.Results, labels []string) chart {
	bar := charts.NewBar()
	bar.SetGlobalOptions(baseOpts()...)
	bar.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(categoryX("experiment · run")),
		charts.WithYAxisOpts(opts.YAxis{Name: "messages", Type: "value", MinInterval: 1}),
	)
	var x []string
	data := make([][]opts.BarData, len(outcomeKinds))
	for _, l := range labels {
		for _, run := range r.Runs {
			x = append(x, fmt.Sprintf("%s · %d", l, run.Number))
			t, ok := run.Tally(l)
			if !ok {
				for k := range data {
					data[k] = append(data[k], opts.BarData{Value: "-"})
				}
				continue
			}
			f := fateOf(run, l, t)
			for k, n := range []int{f.Present, f.Duplicated, f.Lost, f.Unseen, f.Failed, f.Unknown} {
				data[k] = append(data[k], opts.BarData{Value: n})
			}
		}
	}
	bar.SetXAxis(x)
	for k, kind := range outcomeKinds {
		bar.AddSeries(kind.Name, data[k], charts.WithBarChartOpts(opts.BarChart{Stack: "outcome", BarCategoryGap: "35%"}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: kind.Color}))
	}
	g := defaultGrid
	if len(x) > 40 {
		bar.SetGlobalOptions(charts.WithDataZoomOpts(opts.DataZoom{Type: "inside", XAxisIndex: 0}, opts.DataZoom{Type: "slider", XAxisIndex: 0}))
		g.Bottom = 48
	}
	return chart{ID: "chart-outcomes", Title: "What became of every message", Height: 340,
		Note: "One bar per experiment and run, every message sent in exactly one part: present (found once), duplicated (found at more than one offset), " +
			"lost (acknowledged, and gone although the log moved past its offset), unseen (acknowledged at or above the high watermark a snapshot read reached), " +
			"failed and unknown sends (found or not; the summary counts those found). Judged by each run's final read on the healed cluster, " +
			"or its last read step when it made none. An empty place: the run never read that topic.",
		Options: options(bar, nil, g)}
}

// lostChart: lost messages per run, one bar series per experiment.
func lostChart(r *results.Results, labels []string) chart {
	bar := charts.NewBar()
	bar.SetGlobalOptions(baseOpts()...)
	bar.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithYAxisOpts(opts.YAxis{Name: "lost messages", Type: "value", MinInterval: 1}),
		charts.WithXAxisOpts(categoryX("run")),
	)
	x := make([]string, len(r.Runs))
	for i, run := range r.Runs {
		x[i] = strconv.Itoa(run.Number)
	}
	bar.SetXAxis(x)
	for _, l := range labels {
		var data []opts.BarData
		for _, n := range r.LostPerRun(l) {
			if n < 0 {
				data = append(data, opts.BarData{Value: "-"})
			} else {
				data = append(data, opts.BarData{Value: n})
			}
		}
		bar.AddSeries(l, data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(len(r.Runs) <= 20), Position: "top"}))
	}
	return chart{ID: "chart-lost", Title: "Lost messages per run", Height: 320,
		Note:    "Acknowledged messages proven lost, per experiment: by each run's final read on the healed cluster, or its last read step when it made none. A gap means the run never read that topic.",
		Options: options(bar, nil, defaultGrid)}
}

// timeSeries is one experiment's line on a run's time chart, coloured by
// its experiment; the run's marks go on its first line.
func timeSeries(line *charts.Line, s expSeries, data [][2]num, few bool, sampling string) sampledSeries {
	color := labelColor(s.LabelNo)
	line.AddSeries(s.Label, nil,
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(len(data) <= 120 && few), SymbolSize: 4}),
		charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5, Opacity: opts.Float(0.9), Color: color}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: color}))
	ss := sampledSeries{SingleSeries: line.MultiSeries[len(line.MultiSeries)-1], Sampling: sampling}
	ss.Data = data
	return ss
}

// timeChart makes the series of one run's time chart, one per experiment,
// from points, with the run's own fault windows, truncations, cause marks
// and reads on the first. A run that sent nothing has none.
func timeChart(line *charts.Line, r *results.Results, tl timeline, ri int, steps stepIndex, causes []causeMark, sampling string,
	points func(timeline, expSeries) [][2]num) []sampledSeries {
	run := r.Runs[ri]
	var series []sampledSeries
	mine := runSeries(tl, ri)
	for _, s := range mine {
		series = append(series, timeSeries(line, s, points(tl, s), len(mine) <= 8, sampling))
	}
	if len(series) > 0 {
		lb := newLabeller(float64(longestRun(r)))
		area := windowAreas(run, faultWindows(run), 1, lb)
		// The causes are labelled first: where an election and the
		// truncation it led to are too close for two labels, the
		// election's is drawn, the truncation's left to its tooltip.
		lines := causeLines(causes, lb)
		series[0].MarkArea = area
		series[0].MarkLine = timeLines(append(lines, truncLinesOf(r, run, lb)...), readMarks(run, steps), lb)
	}
	return series
}

// runSeries are the series of one run (its index in Results.Runs).
func runSeries(tl timeline, ri int) []expSeries {
	var out []expSeries
	for _, s := range tl.Series {
		if s.Run == ri {
			out = append(out, s)
		}
	}
	return out
}

// Time charts are drawn per run, small multiples on one time axis: the
// first maxTimeRuns runs of a page, so that a page of a hundred repeats
// stays small; the throughput chart of a run that acknowledged fewer than
// minThroughputAcks messages is left out, a rate of a few dozen messages
// saying nothing their latency chart does not.
const (
	maxTimeRuns       = 5
	minThroughputAcks = 200
)

// timeCharts are the throughput and latency charts of each run, in run
// order, each with that run's marks (causes: per run, the cause marks of
// its findings).
func timeCharts(r *results.Results, tl timeline, steps stepIndex, causes [][]causeMark) []chart {
	var out []chart
	for ri := range r.Runs {
		if ri == maxTimeRuns {
			break
		}
		if len(runSeries(tl, ri)) == 0 {
			continue
		}
		if ackedIn(tl, ri) >= minThroughputAcks {
			out = append(out, throughputChart(r, tl, ri, steps, causes[ri]))
		}
		out = append(out, latencyChart(r, tl, ri, steps, causes[ri]))
	}
	if len(out) > 0 && len(r.Runs) > maxTimeRuns {
		out[len(out)-1].Note += fmt.Sprintf(" Runs after the first %d are not charted over time; their ledgers are in results.json, their outcomes in the charts above.", maxTimeRuns)
	}
	return out
}

// ackedIn counts the acknowledgements of run ri, over its experiments.
func ackedIn(tl timeline, ri int) int {
	n := 0
	for _, s := range runSeries(tl, ri) {
		for _, b := range s.Buckets {
			n += b.Acked
		}
	}
	return n
}

// runChartID names run ri's chart of a kind: the first run's is the
// kind's plain id ("chart-latency"), so links to it stay valid.
func runChartID(kind string, r *results.Results, ri int) string {
	if ri == 0 {
		return kind
	}
	return fmt.Sprintf("%s-run-%d", kind, r.Runs[ri].Number)
}

// runTitle prefixes a time chart's title with its run when the page has
// several.
func runTitle(r *results.Results, ri int, title string) string {
	if len(r.Runs) == 1 {
		return title
	}
	return fmt.Sprintf("Run %d: %s", r.Runs[ri].Number, title)
}

// marksNote says what the marks of the time charts are.
const marksNote = "Shaded: the run's fault windows; red lines: a replica truncating its log, removing records (named with its node); " +
	"purple lines: the events the why section gives as a cause (an election, a new leader, an ISR shrink); " +
	"dashed lines: its read steps (snapshots); solid green: its final read on the healed cluster. " +
	"Point at a window or a line for what it was; click a series in the legend to show or hide it."

// latencyChart: the highest ack latency in each interval of every
// experiment of one run, by intended send time since the run began, with
// the run's fault windows shaded and its causes and reads marked.
func latencyChart(r *results.Results, tl timeline, ri int, steps stepIndex, causes []causeMark) chart {
	line := charts.NewLine()
	line.SetGlobalOptions(baseOpts()...)
	line.SetGlobalOptions(
		charts.WithXAxisOpts(timeX(r)),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: "ack latency (ms)"}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "inside", XAxisIndex: 0}, opts.DataZoom{Type: "slider", XAxisIndex: 0}),
	)
	series := timeChart(line, r, tl, ri, steps, causes, "max", latencyPointsOf)
	g := defaultGrid
	g.Bottom = 48 // the zoom slider
	note := ""
	if ri == 0 {
		note = latencyNote(tl) + " " + marksNote
	}
	return chart{ID: runChartID("chart-latency", r, ri), Title: runTitle(r, ri, "Ack latency over time (the highest in each "+widthText(tl.Width)+")"), Height: 400,
		Note: note, Options: options(line, series, g)}
}

// latencyNote documents the latency chart's downsampling.
func latencyNote(tl timeline) string {
	w := widthText(tl.Width)
	head := "Ack latency counted from each message's intended send time, against that time (seconds since the run began), one line per experiment"
	if tl.MostSent <= 1 {
		return head + ". Each point is one acknowledged message (the run is cut into " + w + " intervals, and none held more than one message)."
	}
	return fmt.Sprintf("%s. Each point is the max of the messages meant to be sent in one %s interval: up to %d messages, %.1f on average. "+
		"It is the exact maximum, so a latency spike is never averaged away; the distribution is in the percentile chart below. "+
		"A gap: nothing acknowledged was meant to be sent then.", head, w, tl.MostSent, tl.MeanSent)
}

// throughputChart: acknowledgements per second of every experiment of
// one run, by the time they arrived, with the run's marks.
func throughputChart(r *results.Results, tl timeline, ri int, steps stepIndex, causes []causeMark) chart {
	line := charts.NewLine()
	line.SetGlobalOptions(baseOpts()...)
	series := timeChart(line, r, tl, ri, steps, causes, "minmax", throughputPointsOf)
	var ys []float64
	for _, s := range series {
		for _, p := range s.Data.([][2]num) {
			if p[1] > 0 {
				ys = append(ys, float64(p[1]))
			}
		}
	}
	y := opts.YAxis{Type: "value", Name: "acknowledged messages / s", Min: 0}
	w := widthText(tl.ThroughputWidth())
	note := "Acknowledgements per second, one line per experiment, counted by the time each acknowledgement arrived, in " + w + " intervals " +
		"(each point: the acknowledgements of one interval divided by its width), from the first message an experiment sent to its last outcome. " +
		"A producer stuck behind a dead leader shows as a dip, its retries as the burst after it; failed and unknown sends are not counted. " +
		fmt.Sprintf("A run that acknowledged fewer than %d messages has no throughput chart.", minThroughputAcks)
	if ceil, peak, ok := throughputCeiling(ys); ok {
		y.Max = ceil
		note += fmt.Sprintf(" The axis stops at %s/s, twice the usual rate, so that the steady rate and its dips stay readable: "+
			"bursts above it (up to %s/s) run off the top.", thousands(ceil), thousands(peak))
	} else if ri > 0 {
		note = ""
	}
	if ri == 0 {
		note += " " + marksNote
	}
	line.SetGlobalOptions(
		charts.WithXAxisOpts(timeX(r)),
		charts.WithYAxisOpts(y),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "inside", XAxisIndex: 0}, opts.DataZoom{Type: "slider", XAxisIndex: 0}),
	)
	g := defaultGrid
	g.Bottom = 48
	return chart{ID: runChartID("chart-throughput", r, ri), Title: runTitle(r, ri, "Throughput: acknowledged messages per second"), Height: 380,
		Note: note, Options: options(line, series, g)}
}

// throughputCeiling is where the throughput axis stops when a burst would
// flatten the rest of the chart: about twice the 90th percentile of the
// non-zero rates, when the highest is more than three times that.
func throughputCeiling(ys []float64) (ceil, peak float64, ok bool) {
	if len(ys) < 10 {
		return 0, 0, false
	}
	sort.Float64s(ys)
	p90, peak := ys[len(ys)*9/10], ys[len(ys)-1]
	if p90 <= 0 || peak <= 3*p90 {
		return 0, 0, false
	}
	for p := 1.0; ; p *= 10 {
		for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8} {
			if m*p >= 2*p90 {
				return m * p, peak, true
			}
		}
	}
}

// thousands formats a rate with thousands separators: 22,500.
func thousands(f float64) string {
	s := strconv.FormatInt(int64(math.Round(f)), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// distributionChart: latency percentiles per experiment over all runs.
func distributionChart(r *results.Results, labels []string) chart {
	bar := charts.NewBar()
	bar.SetGlobalOptions(baseOpts()...)
	bar.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(categoryX("percentile")),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: "ack latency (ms)"}),
	)
	bar.SetXAxis([]string{"p50", "p95", "p99", "p99.9", "max"})
	for _, l := range labels {
		p := r.LatencyAll(l)
		var data []opts.BarData
		for _, d := range []time.Duration{p.P50, p.P95, p.P99, p.P999, p.Max} {
			if p.Count == 0 {
				data = append(data, opts.BarData{Value: "-"})
				continue
			}
			data = append(data, opts.BarData{Value: round(math.Max(millis(d), 0.001), 3)})
		}
		bar.AddSeries(fmt.Sprintf("%s (%d acked)", l, p.Count), data)
	}
	return chart{ID: "chart-distribution", Title: "Latency distribution per experiment", Height: 320,
		Note:    "Percentiles of ack latency over every run (HdrHistogram, counted from the intended send time), logarithmic scale.",
		Options: options(bar, nil, defaultGrid)}
}

// isrChart: ISR size and leader of every sampled partition over time, one
// pair of series per run and topic, with the run's fault windows and reads
// on its first series; only run 1 is shown at first.
func isrChart(r *results.Results, steps stepIndex) chart {
	line := charts.NewLine()
	line.SetGlobalOptions(baseOpts()...)
	selected := map[string]bool{}
	lb := newLabeller(float64(longestRun(r)))
	truncs := truncLines(r, lb)
	var series []sampledSeries
	for ri, run := range r.Runs {
		type key struct {
			topic string
			part  int32
		}
		groups := map[key][]results.ISRSample{}
		var keys []key
		for _, s := range run.ISR {
			k := key{s.Topic, s.Partition}
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], s)
		}
		first := true
		for _, k := range keys {
			name := fmt.Sprintf("run %d · %s", run.Number, k.topic)
			if k.part != 0 {
				name = fmt.Sprintf("run %d · %s-%d", run.Number, k.topic, k.part)
			}
			isrPts, leaderPts := isrSteps(run, groups[k])
			for i, s := range []struct {
				name string
				pts  [][2]num
				dash string
			}{{name + " ISR size", isrPts, "solid"}, {name + " leader", leaderPts, "dashed"}} {
				line.AddSeries(s.name, nil,
					charts.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(false)}),
					charts.WithLineStyleOpts(opts.LineStyle{Type: s.dash, Width: 2}))
				ss := sampledSeries{SingleSeries: line.MultiSeries[len(line.MultiSeries)-1]}
				if first && i == 0 {
					ss.MarkArea = windowAreas(run, faultWindows(run), 1, lb)
					ss.MarkLine = timeLines(truncs[ri], readMarks(run, steps), lb)
				}
				ss.Data = s.pts
				series = append(series, ss)
				selected[s.name] = run.Number == r.Runs[0].Number
			}
			first = false
		}
	}
	line.SetGlobalOptions(
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "0", Selected: selected}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(timeX(r)),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "ISR size / leader id", MinInterval: 1, Min: 0}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "inside", XAxisIndex: 0}),
	)
	return chart{ID: "chart-isr", Title: "ISR size and leader over time", Height: 380,
		Note:    "From fresh metadata, sampled at most 250 ms apart. Leader 0 means no leader. Run 1 is shown; pick other runs in the legend. Shaded: fault windows; red lines: truncations that removed records from a replica; dashed lines: read steps; solid green: the final read.",
		Options: options(line, series, defaultGrid)}
}

// isrSteps turns samples into step series, keeping only changes (and the
// last sample), which is lossless for a step chart.
func isrSteps(run results.Run, samples []results.ISRSample) (isr, leader [][2]num) {
	sort.SliceStable(samples, func(i, j int) bool { return samples[i].At.Before(samples[j].At) })
	for i, s := range samples {
		x := round(seconds(since(run, s.At)), 3)
		l := s.Leader
		if l < 0 {
			l = 0
		}
		last := i == len(samples)-1
		if n := len(isr); n == 0 || last || isr[n-1][1] != num(len(s.ISR)) {
			isr = append(isr, [2]num{x, num(len(s.ISR))})
		}
		if n := len(leader); n == 0 || last || leader[n-1][1] != num(l) {
			leader = append(leader, [2]num{x, num(l)})
		}
	}
	return isr, leader
}

// longestRun is the duration of the longest run in whole seconds, the
// common x range of the time charts, so windows open until a run's end show.
func longestRun(r *results.Results) num {
	var d time.Duration
	for _, run := range r.Runs {
		d = max(d, runEnd(run).Sub(run.Start), consumerEnd(run))
		for _, ts := range [][]results.Tally{run.Tallies, run.Final} {
			for _, t := range ts {
				d = max(d, since(run, t.At))
			}
		}
	}
	return num(math.Ceil(d.Seconds()))
}
