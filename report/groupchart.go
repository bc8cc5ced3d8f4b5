package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/kafkabook/kafkabook/results"
)

// The group chart: per run, how far a group's members had got
// (delivered, applied, committed), their crashes and starts marked.

// groupLineKinds are a group's lines, with their colours.
var groupLineKinds = []struct{ Name, Color, Dash string }{
	{"delivered", "#5470c6", "solid"},
	{"applied", "#43a047", "solid"},
	{"committed", "#fb8c00", "dashed"},
}

const (
	crashColor = "#c62828"
	startColor = "#607d8b"
)

// groupChart draws one group over the run's time axis: per run, how far
// its members had got, as offsets summed over the partitions. Run 1 is
// shown, the others are in the legend. facts are the group's, by run number.
func groupChart(r *results.Results, label string, gi int, facts map[int]groupFacts) (chart, bool) {
	line := charts.NewLine()
	line.SetGlobalOptions(baseOpts()...) // tooltips by item: the marks' names show
	span := float64(longestRun(r))
	lb := newLabeller(span)
	width := niceCeil(time.Duration(span*float64(time.Second)) / targetIntervals)
	selected := map[string]bool{}
	var series []sampledSeries
	partitions := 0
	for _, run := range r.Runs {
		c, ok := run.Consumer(label)
		if !ok || (len(c.Members) == 0 && len(c.Events) == 0 && len(c.Offsets) == 0) {
			continue
		}
		f := facts[run.Number]
		partitions = max(partitions, f.partitions)
		lines := groupLines(run, c, width)
		for k, kind := range groupLineKinds {
			name := kind.Name
			if len(r.Runs) > 1 {
				name = fmt.Sprintf("run %d · %s", run.Number, kind.Name)
			}
			line.AddSeries(name, nil,
				charts.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(len(lines[k]) <= 60), SymbolSize: 4}),
				charts.WithLineStyleOpts(opts.LineStyle{Type: kind.Dash, Width: 2, Color: kind.Color}),
				charts.WithItemStyleOpts(opts.ItemStyle{Color: kind.Color}))
			ss := sampledSeries{SingleSeries: line.MultiSeries[len(line.MultiSeries)-1]}
			if k == 0 {
				ss.MarkArea = windowAreas(run, faultWindows(run), 1, lb)
				ss.MarkLine = memberLines(f.marks, lb)
			}
			ss.Data = lines[k]
			series = append(series, ss)
			selected[name] = run.Number == r.Runs[0].Number
		}
	}
	if len(series) == 0 {
		return chart{}, false
	}
	y := opts.YAxis{Type: "value", Name: "offset", MinInterval: 1, Min: 0}
	if partitions > 1 {
		y.Name = fmt.Sprintf("offset, summed over %d partitions", partitions)
	}
	legend := opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "0"}
	if len(r.Runs) > 1 {
		legend.Selected = selected
	}
	line.SetGlobalOptions(
		charts.WithLegendOpts(legend),
		charts.WithXAxisOpts(timeX(r)),
		charts.WithYAxisOpts(y),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "inside", XAxisIndex: 0}),
	)
	note := "How far the group had got, as offsets (the next record to read): delivered is one past the highest offset handed to a member, " +
		"applied one past the highest offset whose effect a member reported, committed the group's committed offset as the members reported their commits " +
		"and the admin API returned it, whichever came last. Committed above applied: records the group will not read again, never applied — lost in the consumer " +
		"unless applied before; applied above committed: records the next member reads again. "
	if partitions > 1 {
		note += "Each line is summed over the partitions. "
	}
	note += "Red lines: a member crashed; grey dashed lines: a new member started; shaded: the run's fault windows. Point at a line for what it was."
	if len(r.Runs) > 1 {
		note += " Run 1 is shown; pick other runs in the legend."
	}
	return chart{ID: "chart-group-" + strconv.Itoa(gi+1), Title: "Group " + label + ": delivered, applied and committed offsets over time", Height: 340, Note: note,
		Options: options(line, series, defaultGrid)}, true
}

// memberLines draws a group's crashes and later members' starts as
// vertical lines, labelled up along the line from its foot.
func memberLines(marks []memberMark, lb *labeller) *markLine {
	if len(marks) == 0 {
		return nil
	}
	ml := &markLine{Symbol: []string{"none", "none"}}
	for i, m := range marks {
		if i == maxMarkedMember {
			break
		}
		p := markLinePoint{Name: m.Name, XAxis: round(seconds(m.At), 3),
			LineStyle: &markStyle{Color: startColor, Type: "dashed", Width: 1}, Label: &markLabel{Show: false}}
		if m.Crash {
			p.LineStyle = &markStyle{Color: crashColor, Type: "solid", Width: 2}
		}
		if lb.placeVertical(m.Short, seconds(m.At)) {
			p.Label = &markLabel{Show: true, Position: "insideStartTop", Formatter: m.Short, Color: p.LineStyle.Color, FontSize: 10}
		}
		ml.Data = append(ml.Data, p)
	}
	return ml
}

// groupLines are a group's delivered, applied and committed lines in one
// run: step lines of offsets summed over the partitions, from the first
// member's start (at 0) to the group's last moment, at most a few points
// an interval of width.
func groupLines(run results.Run, c *results.Consumer, width time.Duration) [3][][2]num {
	var st [3]steps
	from, last := groupSpan(run, c)
	for k := range st {
		st[k].set(from, 0)
	}
	deliv, appl, comm := map[int32]int64{}, map[int32]int64{}, map[int32]int64{}
	sum := func(m map[int32]int64) float64 {
		var n int64
		for _, o := range m {
			n += max(o, 0)
		}
		return float64(n)
	}
	evs, samples := sortedByTime(c.Events, eventAt), sortedByTime(c.Offsets, sampleAt)
	si := 0
	sample := func(upTo time.Time, all bool) {
		for ; si < len(samples) && (all || !samples[si].At.After(upTo)); si++ {
			s := samples[si]
			comm[s.Partition] = s.Committed
			st[2].set(since(run, s.At), sum(comm))
		}
	}
	for _, ev := range evs {
		sample(ev.At, false)
		t := since(run, ev.At)
		switch ev.Kind {
		case results.EventDeliver:
			if ev.Offset+1 > deliv[ev.Partition] {
				deliv[ev.Partition] = ev.Offset + 1
				st[0].set(t, sum(deliv))
			}
		case results.EventEffect:
			if ev.Offset+1 > appl[ev.Partition] {
				appl[ev.Partition] = ev.Offset + 1
				st[1].set(t, sum(appl))
			}
		case results.EventCommit:
			comm[ev.Partition] = ev.Offset
			st[2].set(t, sum(comm))
		}
	}
	sample(time.Time{}, true)
	var out [3][][2]num
	for k := range st {
		st[k].extend(last)
		out[k] = st[k].thin(width)
	}
	return out
}

// groupSpan is when a group began (its first member's start, or its first
// event) and its last moment (the last member's end, or the run's end for
// a member still running), as offsets from the run's start.
func groupSpan(run results.Run, c *results.Consumer) (from, to time.Duration) {
	from = time.Duration(math.MaxInt64)
	note := func(t time.Time) {
		if t.IsZero() {
			return
		}
		d := since(run, t)
		from, to = min(from, d), max(to, d)
	}
	running := false
	for _, m := range c.Members {
		note(m.Start)
		note(m.End)
		running = running || m.End.IsZero()
	}
	if n := len(c.Events); n > 0 {
		note(c.Events[0].At)
		note(c.Events[n-1].At)
	}
	if n := len(c.Offsets); n > 0 {
		note(c.Offsets[0].At)
		note(c.Offsets[n-1].At)
	}
	if running {
		to = max(to, since(run, runEnd(run)))
	}
	if from == time.Duration(math.MaxInt64) {
		from = 0
	}
	return from, to
}

// consumerEnd is the last moment of a run's groups, since its start.
func consumerEnd(run results.Run) time.Duration {
	var d time.Duration
	for i := range run.Consumers {
		_, to := groupSpan(run, &run.Consumers[i])
		d = max(d, to)
	}
	return d
}

// steps is a step line's changes, (seconds, value).
type steps struct{ pts [][2]float64 }

// set records the value v from t on, when it changes.
// Changes at one instant are one change.
func (s *steps) set(t time.Duration, v float64) {
	n := len(s.pts)
	if n > 0 && s.pts[n-1][0] == t.Seconds() {
		s.pts = s.pts[:n-1]
		n--
	}
	if n > 0 && s.pts[n-1][1] == v {
		return
	}
	s.pts = append(s.pts, [2]float64{t.Seconds(), v})
}

// extend holds the last value until t: the line ends there.
func (s *steps) extend(t time.Duration) {
	n := len(s.pts)
	if n == 0 || s.pts[n-1][0] >= t.Seconds() {
		return
	}
	s.pts = append(s.pts, [2]float64{t.Seconds(), s.pts[n-1][1]})
}

// thin keeps, of the changes within each interval of width, the first,
// the lowest, the highest and the last, in time order: a step line of a
// million deliveries costs a few thousand points and keeps every extreme.
// The last point (the line's end) is kept as it is.
func (s *steps) thin(width time.Duration) [][2]num {
	w := width.Seconds()
	if w <= 0 {
		w = 1
	}
	pts := s.pts
	out := make([][2]num, 0, min(len(pts), 4*targetIntervals+2))
	emit := func(i int) {
		out = append(out, [2]num{round(pts[i][0], 3), num(pts[i][1])})
	}
	for i := 0; i < len(pts); {
		b := math.Floor(pts[i][0] / w)
		j := i
		lo, hi := i, i
		for j+1 < len(pts) && math.Floor(pts[j+1][0]/w) == b {
			j++
			if pts[j][1] < pts[lo][1] {
				lo = j
			}
			if pts[j][1] > pts[hi][1] {
				hi = j
			}
		}
		keep := []int{i, lo, hi, j}
		slices.Sort(keep)
		for _, x := range slices.Compact(keep) {
			emit(x)
		}
		i = j + 1
	}
	return out
}
