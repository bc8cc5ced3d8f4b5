package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/explain"
	"github.com/kafkabook/kafkabook/results"
)

// The "why" section: each lost range, duplicate group, NOT_ENOUGH_REPLICAS
// refusal and unapplied consumer record of a run, with the cause
// internal/explain finds in the brokers' lines and kafkabook's records, and
// the statements it rests on, each line linked to its row in the run's
// full log section. Only the first runs are explained step by step, so
// that a page of a hundred runs stays small; later runs get each finding's
// cause sentence, and results.json keeps every line.

// Caps on the why section.
const (
	whyFullRuns       = 5  // runs explained step by step
	whyFindings       = 20 // findings listed per run
	whyUnrecognised   = 20 // unrecognised lines shown per run
	whyStepLineLength = maxLineText
)

// whyRun is one run's explanations.
type whyRun struct {
	Run              int
	Open             bool // run 1 is shown open
	Full             bool // the statements and their lines are shown
	Cause            string
	Findings         []whyFinding
	MoreFindings     int
	Unrecognised     []whyLine
	MoreUnrecognised int
}

// whyFinding is one finding as the page shows it.
type whyFinding struct {
	Kind, Topic, Range string
	Partition          int32
	Count              int
	Cause              string
	Visible            bool
	Steps              []whyStep
}

type whyStep struct {
	Text  string
	Lines []whyLine
}

// whyLine is a log line a statement rests on: its time since the run
// began, its node, its text without timestamp and logger, and the id of
// its row in the run's "all lines" table ("" when the line is not there:
// a `logs` step printed it, or the table was cut short, as Note says).
type whyLine struct{ At, Node, Text, Anchor, Note string }

// lineAnchors are, per run number, the rows of the "all lines" table that
// the why section links to, by their index in sortedLogs.
type lineAnchors map[int]map[int]bool

// lineAnchor is the id of row i of run's "all lines" table.
func lineAnchor(run, i int) string { return fmt.Sprintf("log-%d-%d", run, i) }

// explainRuns explains every run of r, once for the page.
func explainRuns(r *results.Results) []explain.Explanation {
	out := make([]explain.Explanation, len(r.Runs))
	for i, run := range r.Runs {
		out[i] = explain.Run(run)
	}
	return out
}

// whyOf shows the explanations exps of the runs of r. It returns the
// section and the log rows it links to.
func whyOf(r *results.Results, exps []explain.Explanation) ([]whyRun, lineAnchors) {
	var out []whyRun
	anchors := lineAnchors{}
	for i, run := range r.Runs {
		e := exps[i]
		if len(e.Findings) == 0 && len(e.Unrecognised) == 0 {
			continue
		}
		full := i < whyFullRuns
		w := whyRun{Run: run.Number, Open: i == 0, Full: full, Cause: e.Cause}
		rows := logRows(run)
		link := func(l results.LogLine) whyLine {
			v := whyLine{At: relTime(run, l.At), Node: l.Node, Text: clipText(shortLine(l.Text), whyStepLineLength)}
			j, ok := rows[logKey(l)]
			switch {
			case !ok:
				v.Note = "printed by a logs step"
			case j >= maxAllLines:
				v.Note = "beyond the lines shown; in results.json"
			default:
				v.Anchor = lineAnchor(run.Number, j)
				if anchors[run.Number] == nil {
					anchors[run.Number] = map[int]bool{}
				}
				anchors[run.Number][j] = true
			}
			return v
		}
		for k, f := range e.Findings {
			if k == whyFindings {
				w.MoreFindings = len(e.Findings) - k
				break
			}
			wf := whyFinding{Kind: f.Kind, Topic: f.Topic, Range: f.Range, Partition: f.Partition, Count: f.Count, Cause: f.Cause, Visible: f.Visible}
			if full {
				for _, s := range f.Steps {
					ws := whyStep{Text: s.Text}
					for _, l := range s.Lines {
						ws.Lines = append(ws.Lines, link(l))
					}
					wf.Steps = append(wf.Steps, ws)
				}
			}
			w.Findings = append(w.Findings, wf)
		}
		for k, l := range e.Unrecognised {
			if k == whyUnrecognised || !full {
				w.MoreUnrecognised = len(e.Unrecognised) - k
				break
			}
			w.Unrecognised = append(w.Unrecognised, link(l))
		}
		out = append(out, w)
	}
	return out, anchors
}

// logKey identifies a captured line: its node and its text (which begins
// with its timestamp).
func logKey(l results.LogLine) [2]string { return [2]string{l.Node, l.Text} }

// logRows indexes a run's lines in sortedLogs order.
func logRows(run results.Run) map[[2]string]int {
	rows := map[[2]string]int{}
	for i, l := range sortedLogs(run) {
		if _, ok := rows[logKey(l)]; !ok {
			rows[logKey(l)] = i
		}
	}
	return rows
}

// whyHeadline says the causes of a run directory's runs in one line, runs
// with the same cause together: "runs 1, 2: acks1: clean election of k2
// after …; run 3: …". Runs that lost, duplicated and refused nothing are
// left out; "" when every run is such.
func whyHeadline(causes []string) string {
	var order []string
	runs := map[string][]string{}
	for i, c := range causes {
		if c == "" {
			continue
		}
		if _, ok := runs[c]; !ok {
			order = append(order, c)
		}
		runs[c] = append(runs[c], strconv.Itoa(i+1))
	}
	parts := make([]string, len(order))
	for i, c := range order {
		word := "run "
		if len(runs[c]) > 1 {
			word = "runs "
		}
		parts[i] = word + strings.Join(runs[c], ", ") + ": " + c
	}
	return strings.Join(parts, "; ")
}

// causeMark is an event a finding's explanation rests on, drawn on its
// run's time charts: an election, a new leader, an ISR shrink.
type causeMark struct {
	At    time.Duration // since the run began
	Short string        // the label: "k3 elected (unclean)"
	Name  string        // the tooltip: the statement
}

// causeColor marks the events given as causes.
const causeColor = "#6a1b9a"

// causeMarks picks, from the statements of a run's findings, the lines
// that say a leader was elected or took over, or an ISR shrank: the
// moments the why section names. Truncations are drawn already.
func causeMarks(run results.Run, e explain.Explanation) []causeMark {
	var out []causeMark
	seen := map[string]bool{}
	for _, f := range e.Findings {
		for _, st := range f.Steps {
			for _, l := range st.Lines {
				ev, ok := explain.Parse(l)
				if !ok {
					continue
				}
				var short string
				switch ev.Kind {
				case explain.Election:
					short = fmt.Sprintf("k%d elected", ev.Leader)
					if ev.Unclean {
						short += " (unclean)"
					}
				case explain.BecomeLeader:
					short = l.Node + " leads"
				case explain.ISRShrink, explain.UnderMinISR:
					short = l.Node + " ISR shrank"
				default:
					continue
				}
				k := short + "|" + l.At.String()
				if seen[k] {
					continue
				}
				seen[k] = true
				out = append(out, causeMark{At: since(run, l.At), Short: short, Name: fmt.Sprintf("run %d: %s", run.Number, st.Text)})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

// causeLines draws cause marks as purple vertical lines.
func causeLines(ms []causeMark, lb *labeller) []markLinePoint {
	var out []markLinePoint
	for _, m := range ms {
		out = append(out, verticalMark(m.Name, m.Short, m.At, causeColor, lb))
	}
	return out
}
