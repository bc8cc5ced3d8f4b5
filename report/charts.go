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

// Point budgets: the latency chart keeps at most latencyPoints points over
// all its series, and at least minSeriesPoints per series, so that a page of
// a million messages stays a few hundred kilobytes.
const (
	latencyPoints   = 40000
	gapBreak        = 1.0 // seconds without a message that break a latency line
	minSeriesPoints = 200
)

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
	acked := map[string]bool{}
	for _, m := range run.Messages(label) {
		if m.Status == results.StatusOK {
			acked[m.ID] = true
		}
	}
	dup := 0
	for _, d := range t.Duplicates {
		if acked[d.ID] {
			dup++
		}
	}
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

// latencyChart: ack latency of every acknowledged message against its
// intended send time since the run began, one series per run, with the run's
// fault windows shaded and its reads marked on its series.
func latencyChart(r *results.Results, steps stepIndex) chart {
	line := charts.NewLine()
	line.SetGlobalOptions(baseOpts()...)
	line.SetGlobalOptions(
		charts.WithXAxisOpts(timeX(r)),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: "ack latency (ms)"}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "inside", XAxisIndex: 0}, opts.DataZoom{Type: "slider", XAxisIndex: 0}),
	)
	perSeries := latencyPoints
	if len(r.Runs) > 0 {
		perSeries = max(minSeriesPoints, latencyPoints/len(r.Runs))
	}
	lb := newLabeller(float64(longestRun(r)))
	truncs := truncLines(r, lb)
	var series []sampledSeries
	for ri, run := range r.Runs {
		var pts []point
		for _, t := range run.Topics {
			for _, m := range t.Messages {
				d, ok := results.MessageLatency(m)
				if !ok {
					continue
				}
				pts = append(pts, point{X: seconds(since(run, m.Intended)), Y: math.Max(millis(d), 0.001)})
			}
		}
		sortPoints(pts)
		pts = downsample(pts, perSeries)
		data := make([][2]num, 0, len(pts)+8)
		for i, p := range pts {
			if i > 0 && p.X-pts[i-1].X > gapBreak {
				data = append(data, [2]num{round(p.X, 3), num(math.NaN())}) // a null breaks the line
			}
			data = append(data, [2]num{round(p.X, 3), round(p.Y, 3)})
		}
		name := "run " + strconv.Itoa(run.Number)
		line.AddSeries(name, nil,
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(len(pts) <= 400), SymbolSize: 5}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 1, Opacity: opts.Float(0.45)}))
		s := sampledSeries{SingleSeries: line.MultiSeries[len(line.MultiSeries)-1], Sampling: "lttb",
			MarkArea: windowAreas(run, faultWindows(run), len(r.Runs), lb), MarkLine: timeLines(truncs[ri], readMarks(run, steps), lb)}
		s.Data = data
		series = append(series, s)
	}
	g := defaultGrid
	g.Bottom = 48 // the zoom slider
	return chart{ID: "chart-latency", Title: "Ack latency per message", Height: 440,
		Note: "Each point is one acknowledged message: when it was meant to be sent (seconds since the run began) and how long its acknowledgement took from then. " +
			"Shaded: fault windows of that run; red lines: a replica truncating its log, removing records (named with its node); dashed lines: its read steps (snapshots); solid green: its final read on the healed cluster. " +
			"Point at a window or a line for what it was; click a run in the legend to show or hide it with its marks.",
		Options: options(line, series, g)}
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
		d = max(d, runEnd(run).Sub(run.Start))
		for _, ts := range [][]results.Tally{run.Tallies, run.Final} {
			for _, t := range ts {
				d = max(d, since(run, t.At))
			}
		}
	}
	return num(math.Ceil(d.Seconds()))
}
