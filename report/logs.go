package report

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// The broker-log section. The engine captures the notable lines of every
// node (results.Run.Logs); most of them are the controllers replaying
// metadata records, which say little. The page groups the lines by what
// they mean, shows the groups that explain what replication did first
// (truncations that removed records, ISR changes, new leaders, fencing,
// errors), each line with its node and its time since the run began, and
// folds the rest. Every line as captured stays on the page, folded, and in
// results.json.

// logKind is what a captured line says.
type logKind int

const (
	logTruncation logKind = iota // a replica's log cut back: records removed
	logISR                       // ISR shrink, expand, update
	logLeader                    // a new partition leader, an election
	logFencing                   // a broker fenced or unfenced, its state
	logError                     // WARN, ERROR and FATAL lines
	logNoopTrunc                 // a truncation that removed nothing
	logOtherRuns                 // about topics of other runs only
	logOther                     // everything else: metadata records, ...
	logKinds
)

// logGroupInfo titles each kind; the first five are shown, the rest folded.
var logGroupInfo = [logKinds]struct {
	Class, Title, Count, Note string
	Open                      bool
}{
	logTruncation: {"truncation", "Truncation: records removed from a replica", "truncation", "A replica cut its log back to the offset shown, to match the leader: records it held from there on are gone from it. When they were acknowledged and the replica then leads, they are lost.", true},
	logISR:        {"isr", "ISR shrink and expand", "ISR", "", true},
	logLeader:     {"leader", "Leader changes and elections", "leader", "", true},
	logFencing:    {"fencing", "Fencing and broker state", "fencing", "", true},
	logError:      {"error", "Errors and warnings", "error", "", true},
	logNoopTrunc:  {"noop", "Truncations that removed nothing", "no-op truncation", "The replica's log already ended at or before the offset (a new follower's empty log, for instance).", false},
	logOtherRuns:  {"otherruns", "About topics of other runs", "about other runs", "The cluster was reused: these lines concern topics that earlier (or later) runs created.", false},
	logOther:      {"other", "Other lines: metadata records replayed, state changes", "other", "", false},
}

var (
	// logPrefix is the timestamp and level kafkabook's log4j2 layout puts
	// first: "[2026-11-29T21:40:57.945Z] INFO ".
	logPrefix = regexp.MustCompile(`^\[[^\]]*\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) `)
	// logSuffix is the logger's name at the end: " (kafka.cluster.Partition)".
	logSuffix = regexp.MustCompile(` \([a-z][\w.$]*\)$`)

	// UnifiedLog.truncateTo: "Truncating to offset 10" removed records,
	// "Truncating to 0 has no effect as the largest offset in the log is -1"
	// did not.
	truncRemoved = regexp.MustCompile(`partition=([^,\s\]]+)[^\]]*\] Truncating to offset (\d+)`)
	truncNoop    = regexp.MustCompile(`partition=([^,\s\]]+)[^\]]*\] Truncating to (\d+) has no effect`)
	// The fetcher's decision: to the leader's epoch end offset (a diverged
	// log), or to the local high watermark.
	truncFetch = regexp.MustCompile(`Truncating partition (\S+) with TruncationState\(offset=(\d+)[^)]*\) due to (leader epoch|local high watermark)?`)
	truncAny   = regexp.MustCompile(`Truncat`)

	replayed    = regexp.MustCompile(`Replayed (initial )?\w*Record`)
	isrLine     = regexp.MustCompile(`Shrinking ISR|Expanding ISR|ISR updated|PendingShrinkIsr|PendingExpandIsr|[Ff]ailed to alter partition`)
	leaderLine  = regexp.MustCompile(`^\[Broker id=\d+\] Leader \S+ with topic id|[Ee]lected|[Bb]ecoming leader|became (the )?(active )?controller|[Bb]ecoming the active controller|Controller \d+ became|Stepping down|transition to Leader|Setting new leader|[Rr]esigned`)
	fencingLine = regexp.MustCompile(`[Ff]encing broker|been unfenced|[Ff]enced broker|Transitioning from`)
)

// runLogs is the broker-log section of one run.
type runLogs struct {
	Run        int
	Open       bool
	Count      int
	Summary    string    // "truncation 2, ISR 4, …; folded: other 16"
	Findings   []finding // the truncations that removed records
	Groups     []logGroup
	All        []logView // every line as captured, in time order
	AllOmitted int
}

type logGroup struct {
	Class, Title, Note string
	Open               bool
	Lines              []logView
	Count, Omitted     int
}

// logView is one line: its time since the run began, its node, the line
// without its timestamp and logger (Text) and as captured (Full).
type logView struct{ At, Node, Text, Full, ID string } // ID: the row's anchor in "all lines", when the why section links to it

// finding is one truncation that removed records, said in words.
type finding struct {
	At, Node, Partition string
	Offset              int64
	Lost                int    // lost messages acknowledged at or above Offset in that partition
	LostIDs             string // the first of them
}

// Caps on what one run's section shows; results.json keeps every line.
const (
	maxGroupLines = 200
	maxAllLines   = 1000
	maxLineText   = 400 // characters of a line in a group; the full line is under "all lines"
)

// truncation is one truncation of one partition on one node: the fetcher's
// line and the log's line that follows it, taken together.
type truncation struct {
	Node, Partition string
	At              time.Time
	Offset          int64
	Effect          truncEffect
	lines           []int // indices into the run's sorted lines
}

type truncEffect int

const (
	truncUnknown truncEffect = iota
	truncNone
	truncRecords
)

// sortedLogs is a run's log lines in time order (stable for equal times).
func sortedLogs(run results.Run) []results.LogLine {
	ls := append([]results.LogLine(nil), run.Logs...)
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].At.Before(ls[j].At) })
	return ls
}

// truncations finds the truncations in a run's sorted lines. Lines of one
// node about one partition within two seconds are one truncation. It
// removed records when the log said "Truncating to offset N"; it removed
// none when the log said the truncation had no effect; with neither line
// captured, it removed records when the fetcher cut back to the leader's
// epoch end offset (a diverged log), and is unknown otherwise.
func truncations(ls []results.LogLine) []truncation {
	type seen struct{ removed, noop, diverged bool }
	var out []truncation
	var flags []seen
	open := map[[2]string]int{} // node, partition → index in out
	for i, l := range ls {
		var part string
		var off int64
		var f seen
		if m := truncRemoved.FindStringSubmatch(l.Text); m != nil {
			part, f.removed = m[1], true
			off, _ = strconv.ParseInt(m[2], 10, 64)
		} else if m := truncNoop.FindStringSubmatch(l.Text); m != nil {
			part, f.noop = m[1], true
			off, _ = strconv.ParseInt(m[2], 10, 64)
		} else if m := truncFetch.FindStringSubmatch(l.Text); m != nil {
			part, f.diverged = m[1], m[3] == "leader epoch"
			off, _ = strconv.ParseInt(m[2], 10, 64)
		} else {
			continue
		}
		k := [2]string{l.Node, part}
		j, ok := open[k]
		if !ok || l.At.Sub(out[j].At) > 2*time.Second {
			out = append(out, truncation{Node: l.Node, Partition: part, At: l.At, Offset: off})
			flags = append(flags, seen{})
			j = len(out) - 1
			open[k] = j
		}
		out[j].lines = append(out[j].lines, i)
		if f.removed {
			out[j].Offset = off // the log's word on where it cut
		}
		flags[j].removed = flags[j].removed || f.removed
		flags[j].noop = flags[j].noop || f.noop
		flags[j].diverged = flags[j].diverged || f.diverged
	}
	for j, f := range flags {
		switch {
		case f.removed:
			out[j].Effect = truncRecords
		case f.noop:
			out[j].Effect = truncNone
		case f.diverged:
			out[j].Effect = truncRecords
		}
	}
	return out
}

// topicSets are the topics of this run and those of the others, to tell
// lines about this run's partitions from lines about earlier runs' topics
// on a reused cluster.
type topicSets struct{ mine, others []string }

func newTopicSets(r *results.Results, run results.Run) topicSets {
	var ts topicSets
	mine := map[string]bool{}
	for _, t := range run.Topics {
		mine[t.Name] = true
		ts.mine = append(ts.mine, t.Name)
	}
	if r == nil {
		return ts
	}
	for _, o := range r.Runs {
		for _, t := range o.Topics {
			if !mine[t.Name] {
				mine[t.Name] = true
				ts.others = append(ts.others, t.Name)
			}
		}
	}
	return ts
}

// otherRunsOnly tells whether text names a partition of another run's
// topic and none of this run's.
func (ts topicSets) otherRunsOnly(text string) bool {
	for _, t := range ts.mine {
		if mentionsTopic(text, t) {
			return false
		}
	}
	for _, t := range ts.others {
		if mentionsTopic(text, t) {
			return true
		}
	}
	return false
}

// ofOtherRun tells whether a partition ("acks1-r2-0") is of another run's
// topic.
func (ts topicSets) ofOtherRun(partition string) bool {
	return ts.otherRunsOnly(partition)
}

// mentionsTopic tells whether text names a partition of topic: the name,
// then a dash and the partition number, neither inside a longer name.
func mentionsTopic(text, topic string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], topic)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(topic)
		before := i == 0 || !nameByte(text[i-1])
		if before && end+1 < len(text) && text[end] == '-' && isDigit(text[end+1]) {
			j := end + 1
			for j < len(text) && isDigit(text[j]) {
				j++
			}
			if j == len(text) || !nameByte(text[j]) {
				return true
			}
		}
		from = i + 1
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// nameByte is a byte a Kafka topic name may hold.
func nameByte(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '_' || c == '-'
}

// classify sorts one line into its group; trunc is the effect of the
// truncation the line is part of, when isTrunc.
func classify(text string, trunc truncEffect, isTrunc bool, ts topicSets) logKind {
	switch {
	case ts.otherRunsOnly(text):
		return logOtherRuns
	case isTrunc && trunc == truncNone:
		return logNoopTrunc
	case isTrunc || truncAny.MatchString(text):
		return logTruncation
	case replayed.MatchString(text):
		return logOther
	case isrLine.MatchString(text):
		return logISR
	case leaderLine.MatchString(shortLine(text)):
		return logLeader
	case fencingLine.MatchString(text):
		return logFencing
	}
	if m := logPrefix.FindStringSubmatch(text); m != nil && (m[1] == "WARN" || m[1] == "ERROR" || m[1] == "FATAL") {
		return logError
	}
	return logOther
}

// shortLine is a line without its timestamp, its level when INFO, and its
// logger's name.
func shortLine(text string) string {
	if m := logPrefix.FindStringSubmatchIndex(text); m != nil {
		level := text[m[2]:m[3]]
		text = text[m[1]:]
		if level != "INFO" {
			text = level + " " + text
		}
	}
	return logSuffix.ReplaceAllString(text, "")
}

// clipText keeps the first n characters of a line.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// lostAbove counts the lost messages of run acknowledged in partition at
// offset off or later, by the run's verdict on each topic.
func lostAbove(run results.Run, partition string, off int64) (int, []string) {
	dash := strings.LastIndexByte(partition, '-')
	if dash < 0 {
		return 0, nil
	}
	topic := partition[:dash]
	p, err := strconv.ParseInt(partition[dash+1:], 10, 32)
	if err != nil {
		return 0, nil
	}
	var ids []string
	for _, t := range run.Topics {
		if t.Name != topic {
			continue
		}
		tl, ok := run.Tally(t.Label)
		if !ok {
			continue
		}
		for _, l := range tl.Lost {
			if l.Partition == int32(p) && l.Offset >= off {
				ids = append(ids, l.ID)
			}
		}
	}
	return len(ids), ids
}

// relTime is a time since the run began, as the page shows it.
func relTime(run results.Run, t time.Time) string {
	return fmt.Sprintf("%.3f s", since(run, t).Seconds())
}

// logsOf builds the broker-log section of every run that captured lines;
// the rows of "all lines" in anchors get an id the why section links to.
func logsOf(r *results.Results, anchors lineAnchors) []runLogs {
	var out []runLogs
	for i, run := range r.Runs {
		if len(run.Logs) == 0 {
			continue
		}
		out = append(out, runLogsOf(r, run, i == 0, anchors[run.Number]))
	}
	return out
}

func runLogsOf(r *results.Results, run results.Run, open bool, anchored map[int]bool) runLogs {
	ls := sortedLogs(run)
	ts := newTopicSets(r, run)
	rl := runLogs{Run: run.Number, Open: open, Count: len(ls)}
	effect := map[int]truncEffect{}
	for _, t := range truncations(ls) {
		for _, i := range t.lines {
			effect[i] = t.Effect
		}
		if t.Effect == truncRecords && !ts.ofOtherRun(t.Partition) {
			n, ids := lostAbove(run, t.Partition, t.Offset)
			rl.Findings = append(rl.Findings, finding{At: relTime(run, t.At), Node: t.Node, Partition: t.Partition, Offset: t.Offset,
				Lost: n, LostIDs: idList(ids, 10)})
		}
	}
	groups := make([]logGroup, logKinds)
	for k := range groups {
		gi := logGroupInfo[k]
		groups[k] = logGroup{Class: gi.Class, Title: gi.Title, Note: gi.Note, Open: gi.Open}
	}
	for i, l := range ls {
		e, isTrunc := effect[i]
		k := classify(l.Text, e, isTrunc, ts)
		g := &groups[k]
		g.Count++
		v := logView{At: relTime(run, l.At), Node: l.Node, Text: clipText(shortLine(l.Text), maxLineText), Full: l.Text}
		if len(g.Lines) < maxGroupLines {
			g.Lines = append(g.Lines, v)
		} else {
			g.Omitted++
		}
		if len(rl.All) < maxAllLines {
			if anchored[i] {
				v.ID = lineAnchor(run.Number, i)
			}
			rl.All = append(rl.All, v)
		} else {
			rl.AllOmitted++
		}
	}
	var shown, folded []string
	for k, g := range groups {
		if g.Count == 0 {
			continue
		}
		rl.Groups = append(rl.Groups, g)
		part := fmt.Sprintf("%s %d", logGroupInfo[k].Count, g.Count)
		if g.Open {
			shown = append(shown, part)
		} else {
			folded = append(folded, part)
		}
	}
	rl.Summary = strings.Join(shown, ", ")
	if len(folded) > 0 {
		if rl.Summary != "" {
			rl.Summary += "; "
		}
		rl.Summary += "folded: " + strings.Join(folded, ", ")
	}
	return rl
}

// truncMark is a truncation that removed records, on the time charts.
type truncMark struct {
	At    time.Duration
	Short string // "k1 truncated"
	Name  string // the tooltip
}

// truncMarks are the truncations of a run that removed records from a
// replica of one of its topics: the moments acknowledged messages may
// disappear.
func truncMarks(r *results.Results, run results.Run) []truncMark {
	ts := newTopicSets(r, run)
	var out []truncMark
	for _, t := range truncations(sortedLogs(run)) {
		if t.Effect != truncRecords || ts.ofOtherRun(t.Partition) {
			continue
		}
		name := fmt.Sprintf("run %d: %s truncated %s to offset %d at %.1f s, removing the records it held from there on", run.Number, t.Node, t.Partition, t.Offset, since(run, t.At).Seconds())
		if n, _ := lostAbove(run, t.Partition, t.Offset); n > 0 {
			name += fmt.Sprintf("; %d lost messages had been acknowledged there", n)
		}
		out = append(out, truncMark{At: since(run, t.At), Short: t.Node + " truncated", Name: name})
	}
	return out
}
