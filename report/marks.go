package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// The marks drawn on the time charts: fault windows (shaded areas, named at
// their top left) and reads (vertical lines, named at their foot). echarts
// does not keep the labels of different areas apart, so a labeller decides
// where each label goes: a label goes one level lower when it would run
// into one already placed, and a label that fits on no level, or repeats
// one drawn at the same place for an earlier run, is left off; the area's
// or line's full name stays in its tooltip.

// markArea and markLine are echarts' series.markArea and series.markLine;
// go-echarts cannot give each item its own label.
type markArea struct {
	Data [][2]markPoint `json:"data"`
}

type markLine struct {
	Symbol    []string        `json:"symbol"`
	Silent    bool            `json:"silent"`
	Animation bool            `json:"animation"`
	Data      []markLinePoint `json:"data"`
}

type markPoint struct {
	Name      string     `json:"name,omitempty"`
	XAxis     num        `json:"xAxis"`
	ItemStyle *markStyle `json:"itemStyle,omitempty"`
	Label     *markLabel `json:"label,omitempty"`
}

type markLinePoint struct {
	Name      string     `json:"name"`
	XAxis     num        `json:"xAxis"`
	LineStyle *markStyle `json:"lineStyle,omitempty"`
	Label     *markLabel `json:"label,omitempty"`
}

type markStyle struct {
	Color string  `json:"color,omitempty"`
	Type  string  `json:"type,omitempty"`
	Width float64 `json:"width,omitempty"`
}

type markLabel struct {
	Show      bool   `json:"show"`
	Position  string `json:"position,omitempty"`
	Formatter string `json:"formatter,omitempty"`
	Offset    []int  `json:"offset,omitempty"`
	Color     string `json:"color,omitempty"`
	FontSize  int    `json:"fontSize,omitempty"`
}

// Label geometry, in pixels. plotWidth is a conservative guess at the
// width of a chart's plot on a laptop; a wider page only spreads labels out.
const (
	plotWidth    = 760.0
	charWidth    = 6.4 // an 11 px system-ui glyph, on average
	labelPadding = 10.0
	levelHeight  = 15
	maxLevels    = 4
	verticalGap  = 16 // a 10 px line of text and some air
)

// labeller places labels along a time axis of span seconds.
type labeller struct {
	pxPerSec float64
	levels   [][][2]float64 // per level, the pixel spans taken
	vertical []float64      // where labels along vertical lines are
	drawn    map[string][]float64
}

func newLabeller(span float64) *labeller {
	if span <= 0 {
		span = 1
	}
	return &labeller{pxPerSec: plotWidth / span, levels: make([][][2]float64, maxLevels), drawn: map[string][]float64{}}
}

// place finds a level for text starting at x seconds, or false when the
// label is better left off: the same text is drawn within a label's width
// already (the same window in another run), or no level has room.
func (l *labeller) place(text string, x float64) (int, bool) {
	from := x * l.pxPerSec
	width := float64(len([]rune(text)))*charWidth + labelPadding
	for _, at := range l.drawn[text] {
		if math.Abs(at-from) < width/2 {
			return 0, false
		}
	}
	for lv := range l.levels {
		free := true
		for _, s := range l.levels[lv] {
			if from < s[1] && s[0] < from+width {
				free = false
				break
			}
		}
		if free {
			l.levels[lv] = append(l.levels[lv], [2]float64{from, from + width})
			l.drawn[text] = append(l.drawn[text], from)
			return lv, true
		}
	}
	return 0, false
}

// maxLabel is the longest label drawn on a chart, in characters; the full
// text is in the tooltip.
const maxLabel = 28

// clipLabel shortens a label to maxLabel characters.
func clipLabel(s string) string {
	r := []rune(s)
	if len(r) <= maxLabel {
		return s
	}
	return string(r[:maxLabel-1]) + "…"
}

// placeVertical decides whether a label written up along a vertical line
// at x seconds is drawn: not when the same text is drawn nearby (the same
// step read in another run), nor when another such label is closer than a
// line of text.
func (l *labeller) placeVertical(text string, x float64) bool {
	px := x * l.pxPerSec
	for _, at := range l.drawn["\x00"+text] {
		if math.Abs(at-px) < 48 {
			return false
		}
	}
	for _, at := range l.vertical {
		if math.Abs(at-px) < verticalGap {
			return false
		}
	}
	l.vertical = append(l.vertical, px)
	l.drawn["\x00"+text] = append(l.drawn["\x00"+text], px)
	return true
}

// windowColors shades each kind of fault window (RGB; the alpha depends on
// how many runs' windows may overlap); a kind without a colour of its own
// (a new fault's, until it gets one) is shaded in otherWindow, so that a
// new fault needs no line here to be drawn.
var windowColors = map[string]string{
	"isolated":    "255, 152, 0",
	"paused":      "33, 150, 243",
	"killed":      "229, 57, 53",
	"stopped":     "120, 120, 120",
	"partitioned": "0, 150, 136",
	"lossy":       "156, 39, 176",
	"narrow link": "121, 134, 203",
	"slow link":   "0, 172, 193",
	"lost power":  "93, 64, 55",
}

// otherWindow is the shade of a window kind windowColors does not name.
const otherWindow = "96, 125, 139"

// windowColor is the RGB shade of a kind of fault window.
func windowColor(kind string) string {
	if c, ok := windowColors[kind]; ok {
		return c
	}
	return otherWindow
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

// windowAreas shades a run's fault windows; layers is how many runs'
// windows are drawn on the same chart, lb places their labels.
func windowAreas(run results.Run, ws []window, layers int, lb *labeller) *markArea {
	if len(ws) == 0 {
		return nil
	}
	alpha := strconv.FormatFloat(windowAlpha(layers), 'f', 3, 64)
	a := &markArea{}
	for _, w := range ws {
		from := markPoint{Name: fmt.Sprintf("run %d: %s, %.1f s to %.1f s", run.Number, w.Name(), seconds(w.From), seconds(w.To)),
			XAxis: round(seconds(w.From), 3), ItemStyle: &markStyle{Color: "rgba(" + windowColor(w.Kind) + ", " + alpha + ")"}}
		label := &markLabel{Show: false}
		if lv, ok := lb.place(clipLabel(w.Name()), seconds(w.From)); ok {
			label = &markLabel{Show: true, Position: "insideTopLeft", Formatter: clipLabel(w.Name()), Offset: []int{0, lv * levelHeight},
				Color: "#444", FontSize: 11}
		}
		from.Label = label
		a.Data = append(a.Data, [2]markPoint{from, {XAxis: round(seconds(w.To), 3)}})
	}
	return a
}

// readMark is one read of a run on the time axis.
type readMark struct {
	At    time.Duration // since the run began
	Final bool
	Short string // the label: "read, line 40" or "final read"
	Name  string // the tooltip: what the read found
}

// readMarks lists the reads of a run: each `read` step's snapshot, and
// the final read (one mark for all its topics).
func readMarks(run results.Run, steps stepIndex) []readMark {
	var out []readMark
	for _, t := range run.Tallies {
		if t.At.IsZero() {
			continue
		}
		o := t.Outcomes()
		out = append(out, readMark{At: since(run, t.At), Short: "read, " + steps.name(run, t),
			Name: fmt.Sprintf("run %d: read %s (%s): %d present, %d unseen, %d lost", run.Number, t.Label, steps.name(run, t), o.Present, o.Unseen, o.Lost)})
	}
	var final *readMark
	var parts []string
	for _, t := range run.Final {
		if t.At.IsZero() {
			continue
		}
		o := t.Outcomes()
		parts = append(parts, fmt.Sprintf("%s: %d present, %d lost", t.Label, o.Present, o.Lost))
		at := since(run, t.At)
		if final == nil {
			final = &readMark{At: at, Final: true, Short: "final read"}
		}
		final.At = min(final.At, at)
	}
	if final != nil {
		final.Name = fmt.Sprintf("run %d: final read on the healed cluster: %s", run.Number, strings.Join(parts, "; "))
		out = append(out, *final)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

// truncLines draws every run's truncations that removed records as red
// vertical lines named with their node ("k1 truncated"), labelled up along
// the line from its foot. They are labelled before any read, so that a read
// nearby gives way to them; the result is indexed like r.Runs.
func truncLines(r *results.Results, lb *labeller) [][]markLinePoint {
	out := make([][]markLinePoint, len(r.Runs))
	for i, run := range r.Runs {
		out[i] = truncLinesOf(r, run, lb)
	}
	return out
}

// truncLinesOf draws one run's truncations (see truncLines).
func truncLinesOf(r *results.Results, run results.Run, lb *labeller) []markLinePoint {
	var out []markLinePoint
	for _, t := range truncMarks(r, run) {
		out = append(out, verticalMark(t.Name, t.Short, t.At, truncColor, lb))
	}
	return out
}

// verticalMark is a solid vertical line of colour at, its label written
// up along it from its foot when lb finds room.
func verticalMark(name, short string, at time.Duration, color string, lb *labeller) markLinePoint {
	p := markLinePoint{Name: name, XAxis: round(seconds(at), 3),
		LineStyle: &markStyle{Color: color, Type: "solid", Width: 2}, Label: &markLabel{Show: false}}
	if short := clipLabel(short); lb.placeVertical(short, seconds(at)) {
		p.Label = &markLabel{Show: true, Position: "insideStartTop", Formatter: short, Color: color, FontSize: 10}
	}
	return p
}

// timeLines draws a run's truncations (from truncLines) and its reads as
// vertical lines, the reads' labels written up along the line from its
// foot, clear of the window labels at the top.
func timeLines(truncs []markLinePoint, reads []readMark, lb *labeller) *markLine {
	if len(truncs) == 0 && len(reads) == 0 {
		return nil
	}
	ml := &markLine{Symbol: []string{"none", "none"}, Data: append([]markLinePoint(nil), truncs...)}
	for _, m := range reads {
		p := markLinePoint{Name: m.Name, XAxis: round(seconds(m.At), 3),
			LineStyle: &markStyle{Color: "#607d8b", Type: "dashed", Width: 1}, Label: &markLabel{Show: false}}
		if m.Final {
			p.LineStyle = &markStyle{Color: "#2e7d32", Type: "solid", Width: 1.5}
		}
		if short := clipLabel(m.Short); lb.placeVertical(short, seconds(m.At)) {
			p.Label = &markLabel{Show: true, Position: "insideStartTop", Formatter: short, Color: p.LineStyle.Color, FontSize: 10}
		}
		ml.Data = append(ml.Data, p)
	}
	return ml
}

// truncColor marks truncations that removed records.
const truncColor = "#c62828"
