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
	Sampling string `json:"sampling,omitempty"`
}

// rectChart is what the go-echarts chart types used here have in common.
type rectChart interface {
	Validate()
	JSON() map[string]any
}

// options takes a go-echarts chart's options, with its series replaced by
// series (which may carry sampling and compact data).
func options(c rectChart, series []sampledSeries) map[string]any {
	c.Validate()
	o := c.JSON()
	if series != nil {
		o["series"] = series
	}
	return o
}

// baseOpts are the options every chart shares; bottom is the room below the
// plot in pixels (more when a zoom slider sits there).
func baseOpts(bottom int) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{}),
		charts.WithAnimation(false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "0"}),
		charts.WithGridOpts(opts.Grid{Left: "64", Right: "32", Top: "64", Bottom: strconv.Itoa(bottom), ContainLabel: opts.Bool(true)}),
	}
}

// lostChart: lost messages per run, one bar series per experiment.
func lostChart(r *results.Results, labels []string) chart {
	bar := charts.NewBar()
	bar.SetGlobalOptions(baseOpts(56)...)
	bar.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithYAxisOpts(opts.YAxis{Name: "lost messages", Type: "value", MinInterval: 1}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "run"}),
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
		Note:    "Acknowledged messages that the run's last read did not find, per experiment. A gap means the run never read that topic.",
		Options: options(bar, nil)}
}

// windowColors shades each kind of fault window (RGB; the alpha depends on
// how many runs' windows may overlap).
var windowColors = map[string]string{
	"isolated": "255, 152, 0",
	"paused":   "33, 150, 243",
	"killed":   "229, 57, 53",
	"stopped":  "120, 120, 120",
}

// windowAlpha is the opacity of one run's window when layers of them may
// overlap: layers stacked exactly give the opacity of a single window.
func windowAlpha(layers int) float64 {
	const single = 0.18
	if layers <= 1 {
		return single
	}
	return math.Max(1-math.Pow(1-single, 1/float64(layers)), 0.004)
}

// windowLabelPos keeps labels of overlapping windows apart.
var windowLabelPos = map[string]string{
	"isolated": "insideTop", "paused": "insideTopLeft", "killed": "insideBottom", "stopped": "insideBottomLeft",
}

// markAreas shades a run's fault windows on a series; layers is how many
// runs' windows are drawn on the same chart.
func markAreas(ws []window, layers int) charts.SeriesOpts {
	alpha := strconv.FormatFloat(windowAlpha(layers), 'f', 3, 64)
	var data [][]opts.MarkAreaData
	for _, w := range ws {
		from := opts.MarkAreaData{Name: w.Name(), XAxis: round(seconds(w.From), 3), MarkAreaStyle: opts.MarkAreaStyle{
			ItemStyle: &opts.ItemStyle{Color: "rgba(" + windowColors[w.Kind] + ", " + alpha + ")"},
			Label:     &opts.Label{Show: opts.Bool(true), Position: windowLabelPos[w.Kind], Color: "#444", FontSize: 11},
		}}
		to := opts.MarkAreaData{XAxis: round(seconds(w.To), 3)}
		data = append(data, []opts.MarkAreaData{from, to})
	}
	return charts.WithMarkAreaData(data...)
}

// latencyChart: ack latency of every acknowledged message against its
// intended send time since the run began, one series per run, with the run's
// fault windows shaded on its series.
func latencyChart(r *results.Results) chart {
	line := charts.NewLine()
	line.SetGlobalOptions(baseOpts(96)...)
	line.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "seconds since the run began", NameLocation: "middle", NameGap: 28, Min: 0, Max: longestRun(r)}),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: "ack latency (ms)"}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "inside", XAxisIndex: 0}, opts.DataZoom{Type: "slider", XAxisIndex: 0}),
	)
	perSeries := latencyPoints
	if len(r.Runs) > 0 {
		perSeries = max(minSeriesPoints, latencyPoints/len(r.Runs))
	}
	var series []sampledSeries
	for _, run := range r.Runs {
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
			charts.WithLineStyleOpts(opts.LineStyle{Width: 1, Opacity: opts.Float(0.45)}),
			markAreas(faultWindows(run), len(r.Runs)))
		s := sampledSeries{SingleSeries: line.MultiSeries[len(line.MultiSeries)-1], Sampling: "lttb"}
		s.Data = data
		series = append(series, s)
	}
	return chart{ID: "chart-latency", Title: "Ack latency per message", Height: 420,
		Note:    "Each point is one acknowledged message: when it was meant to be sent (seconds since the run began) and how long its acknowledgement took from then. Shaded: fault windows of that run; click a run in the legend to show or hide it and its windows.",
		Options: options(line, series)}
}

// distributionChart: latency percentiles per experiment over all runs.
func distributionChart(r *results.Results, labels []string) chart {
	bar := charts.NewBar()
	bar.SetGlobalOptions(baseOpts(56)...)
	bar.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category"}),
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
		Options: options(bar, nil)}
}

// isrChart: ISR size and leader of every sampled partition over time, one
// pair of series per run and topic; only run 1 is shown at first.
func isrChart(r *results.Results) chart {
	line := charts.NewLine()
	line.SetGlobalOptions(baseOpts(56)...)
	selected := map[string]bool{}
	var series []sampledSeries
	for _, run := range r.Runs {
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
				o := []charts.SeriesOpts{
					charts.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(false)}),
					charts.WithLineStyleOpts(opts.LineStyle{Type: s.dash, Width: 2}),
				}
				if first && i == 0 {
					o = append(o, markAreas(faultWindows(run), 1))
				}
				line.AddSeries(s.name, nil, o...)
				ss := sampledSeries{SingleSeries: line.MultiSeries[len(line.MultiSeries)-1]}
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
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "seconds since the run began", NameLocation: "middle", NameGap: 28, Min: 0, Max: longestRun(r)}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "ISR size / leader id", MinInterval: 1, Min: 0}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "inside", XAxisIndex: 0}),
	)
	return chart{ID: "chart-isr", Title: "ISR size and leader over time", Height: 360,
		Note:    "From fresh metadata, sampled at most 250 ms apart. Leader 0 means no leader. Run 1 is shown; pick other runs in the legend. Shaded: fault windows.",
		Options: options(line, series)}
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
	}
	return num(math.Ceil(d.Seconds()))
}
