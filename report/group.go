package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/kafkabook/kafkabook/results"
)

// The consumer section of a page. A consumer group (results.Consumer) is a
// `consume` step's members, processes of their own that poll a topic, apply
// each record's effect to the group's SQLite store and commit offsets. Per
// group (by its label in the runbook) the page shows how it was set up, a
// table with a row per run, a time chart of how far the members had got —
// delivered, applied, committed — with their crashes marked and the run's
// fault windows shaded, and per run the group's tally, every number with
// what it means, and its members. Lists of ids are cut short; everything is
// in results.json.

// groupSection is one consumer group of a page, over every run.
type groupSection struct {
	ID         string // "group-1": the anchor; its chart is "chart-group-1"
	Label      string
	Topic      string
	Commit     string
	CommitNote string
	Dedup      string
	DedupNote  string
	Settings   []fact
	Pos        string // the consume step's position
	Rows       []groupRow
	Total      *groupRow // over the runs, when there are several
	Chart      *chart
	Runs       []groupRun
}

// groupRow is one run of a group in the table at the head of the section.
type groupRow struct {
	Run        string
	Ran        bool // the run had this group
	Tallied    bool // and tallied it after the run
	Delivered  int
	Deliveries int
	Redeliv    int
	Applied    int
	Twice      int
	Skipped    int
	Unapplied  int
	Pending    int
	Committed  string // summed over partitions, and the log end offsets: "10 / 10"; "–" without a tally
	StoreTotal int64
	Effects    int
	Crashes    int
	Held       bool     // every expectation on this group held
	Exprs      []string // those that failed: "unapplied(auto) == 0 (was 7)"
	Expects    int      // expectations on this group in the run
}

// groupRun is what one run of a group did, for its folded details.
type groupRun struct {
	Run         int
	Open        bool // run 1 is shown open, the others folded
	Summary     string
	Store       string // the group's SQLite file, relative to results.json
	Note        string // why some numbers are missing
	Tallies     []tallyRow
	Members     []memberRow
	MoreMembers int
}

// tallyRow is one number of a group's tally, with the records it counts
// (cut short) and what it means.
type tallyRow struct {
	Name    string // as people read it: "applied twice"
	Func    string // the expect function, when there is one: "applied_twice"
	Value   string
	Class   string   // "bad", "warn" or ""
	IDs     []idItem // the records it counts, the first maxGroupIDs
	More    int      // and how many more
	Detail  string   // or what it consists of, in words
	Meaning string
}

// idItem is an id in a tally row, with a note: "×2 (effects at ...)".
type idItem struct{ ID, Note string }

// memberRow is one member process of a group in one run.
type memberRow struct {
	N      int
	PID    string
	Start  string
	End    string
	How    string
	Class  string
	Reason string
	Errors []string // what the client logged at ERROR
}

// Caps on the lists of the section; every entry is in results.json.
const (
	maxGroupIDs     = 20 // ids listed per tally row
	maxEffectTimes  = 5  // effect times listed per event applied twice
	maxGroupKeys    = 10 // like counts listed
	maxPartitions   = 12 // partitions listed in the committed row
	maxMemberRows   = 50 // members listed per run
	maxMarkedMember = 50 // crashes and starts marked on the chart per run
)

// commitNotes and dedupNotes say what each mode does.
var (
	commitNotes = map[string]string{
		"auto":   "franz-go's auto-commit: every interval it commits the records of the polls before the last one, what the loop has finished with (as the Java client's poll does).",
		"greedy": "franz-go's greedy auto-commit: every interval it commits everything polled so far, processed or not (the article's timeline).",
		"after":  "each record's offset is committed once the record is handled.",
		"before": "each record's offset is committed before the record is handled.",
	}
	dedupNotes = map[string]string{
		"none":          "every delivery is applied.",
		"table":         "an event id found in event_handled is skipped; else the effect is applied, then the id inserted, in a second transaction.",
		"transactional": "the effect and the event id's insert into event_handled are one transaction.",
	}
)

// groupLabels are the labels of every run's groups, in order of first use.
func groupLabels(r *results.Results) []string {
	var out []string
	for _, run := range r.Runs {
		for _, c := range run.Consumers {
			if !slices.Contains(out, c.Label) {
				out = append(out, c.Label)
			}
		}
	}
	return out
}

// consumerSections builds the consumer section of a page: nothing when no
// run had a consumer group.
func consumerSections(r *results.Results) []groupSection {
	var out []groupSection
	for gi, label := range groupLabels(r) {
		g := groupSection{ID: "group-" + strconv.Itoa(gi+1), Label: label}
		total := groupRow{Run: "all", Ran: true, Tallied: true, Held: true}
		ran := 0
		first := true
		facts := map[int]groupFacts{}
		for _, run := range r.Runs {
			c, ok := run.Consumer(label)
			if !ok {
				g.Rows = append(g.Rows, groupRow{Run: strconv.Itoa(run.Number)})
				continue
			}
			ran++
			if first {
				g.Topic, g.Commit, g.Dedup, g.Pos = c.Topic, c.Commit, c.Dedup, c.Pos
				g.CommitNote, g.DedupNote = commitNotes[c.Commit], dedupNotes[c.Dedup]
				g.Settings = sortedFacts(c.Settings)
			}
			f := newGroupFacts(run, c)
			facts[run.Number] = f
			row := groupRowOf(run, c, f)
			g.Rows = append(g.Rows, row)
			g.Runs = append(g.Runs, groupRunOf(run, c, f, first))
			first = false
			total.Tallied = total.Tallied && row.Tallied
			total.Delivered += row.Delivered
			total.Deliveries += row.Deliveries
			total.Redeliv += row.Redeliv
			total.Applied += row.Applied
			total.Twice += row.Twice
			total.Skipped += row.Skipped
			total.Unapplied += row.Unapplied
			total.Pending += row.Pending
			total.StoreTotal += row.StoreTotal
			total.Effects += row.Effects
			total.Crashes += row.Crashes
			total.Expects += row.Expects
			total.Held = total.Held && row.Held
		}
		if ran > 1 || len(r.Runs) > 1 {
			g.Total = &total
		}
		if ch, ok := groupChart(r, label, gi, facts); ok {
			g.Chart = &ch
		}
		out = append(out, g)
	}
	return out
}

// groupFacts is what a group's events say beyond its tally: its crashes
// and later members for the chart, the times of the effects of events
// applied more than once, and, for a group never tallied, the counts the
// members' reports give on their own.
type groupFacts struct {
	marks      []memberMark
	effectsAt  map[string][]time.Duration // event id → its effects, for AppliedTwice
	partitions int

	// From the events alone, for a group without a tally.
	delivered, deliveries, effects int
	redelivered, skipped           []string
	committed                      map[int32]int64 // the last commit reported or sampled
}

// memberMark is a member's crash (or failure) or a later member's start,
// a vertical line on the group's chart.
type memberMark struct {
	At    time.Duration
	Crash bool
	Short string // "member 1 crashed"
	Name  string // the tooltip
}

// eventKey is the event id a consumer event's effect counts under.
func eventKey(ev results.ConsumerEvent) string {
	if ev.Event != "" {
		return ev.Event
	}
	return ev.ID
}

// newGroupFacts reads a group's facts from one run: its events, its
// partitions and its members.
func newGroupFacts(run results.Run, c *results.Consumer) groupFacts {
	f := groupFacts{effectsAt: map[string][]time.Duration{}}
	crashed := f.readEvents(run, c)
	f.partitions = partitionCount(c)
	f.markMembers(run, c.Members, crashed)
	return f
}

// readEvents reads the group's events in time order: the times of the
// effects of events applied twice and, for a group without a tally, the
// counts the events give on their own. It returns each member's first
// crash event, for markMembers to say which record it crashed on.
func (f *groupFacts) readEvents(run results.Run, c *results.Consumer) map[int]results.ConsumerEvent {
	want := map[string]bool{}
	if c.Tally != nil {
		for _, a := range c.Tally.AppliedTwice {
			want[a.Event] = true
		}
	}
	crashed := map[int]results.ConsumerEvent{}
	noTally := c.Tally == nil
	type at struct {
		p   int32
		off int64
	}
	var seen map[at]int
	if noTally {
		seen = map[at]int{}
		f.committed = map[int32]int64{}
	}
	for _, ev := range sortedByTime(c.Events, eventAt) {
		switch ev.Kind {
		case results.EventEffect:
			if k := eventKey(ev); want[k] {
				f.effectsAt[k] = append(f.effectsAt[k], since(run, ev.At))
			}
			f.effects++
		case results.EventCrash:
			if _, ok := crashed[ev.Member]; !ok {
				crashed[ev.Member] = ev
			}
		case results.EventDeliver:
			if noTally {
				f.deliveries++
				k := at{ev.Partition, ev.Offset}
				seen[k]++
				if seen[k] == 2 {
					f.redelivered = append(f.redelivered, ev.ID)
				}
			}
		case results.EventSkip:
			if noTally {
				f.skipped = append(f.skipped, ev.ID)
			}
		case results.EventCommit:
			if noTally {
				f.committed[ev.Partition] = ev.Offset
			}
		}
	}
	if noTally {
		f.delivered = len(seen)
		for _, s := range sortedByTime(c.Offsets, sampleAt) {
			f.committed[s.Partition] = s.Committed
		}
		results.SortIDs(f.redelivered)
		results.SortIDs(f.skipped)
	}
	return crashed
}

// partitionCount counts the partitions the group's records say it read or
// committed: its events, its tally and its sampled offsets, since a
// partition may show in any one of them alone.
func partitionCount(c *results.Consumer) int {
	parts := map[int32]bool{}
	for _, ev := range c.Events {
		parts[ev.Partition] = true
	}
	if c.Tally != nil {
		for p := range c.Tally.End {
			parts[p] = true
		}
		for p := range c.Tally.Committed {
			parts[p] = true
		}
	}
	for _, s := range c.Offsets {
		parts[s.Partition] = true
	}
	return len(parts)
}

// markMembers adds the chart's member marks, in time order: a crash event
// (--crash-at) says which record; a member that ended crashed, or failed,
// says why; one crash mark per member, and a start mark for each member
// after the first. crashed holds each member's first crash event.
func (f *groupFacts) markMembers(run results.Run, members []results.Member, crashed map[int]results.ConsumerEvent) {
	for i, m := range sortedMembers(members) {
		ev, hasEv := crashed[m.N]
		switch {
		case hasEv || m.How == results.MemberCrashed:
			t := m.End
			name := fmt.Sprintf("run %d: member %d crashed", run.Number, m.N)
			if hasEv {
				t = ev.At
				name += fmt.Sprintf(" while handling %s (partition %d, offset %d)", orDash(ev.ID), ev.Partition, ev.Offset)
			}
			if m.Reason != "" {
				name += ": " + m.Reason
			}
			f.marks = append(f.marks, memberMark{At: since(run, t), Crash: true, Short: fmt.Sprintf("member %d crashed", m.N), Name: name})
			delete(crashed, m.N)
		case m.How == results.MemberStopped && strings.HasPrefix(m.Reason, "fenced"):
			// A frozen transform member whose successor took its
			// transactional id: the zombie case.
			f.marks = append(f.marks, memberMark{At: since(run, m.End), Crash: true, Short: fmt.Sprintf("member %d fenced", m.N),
				Name: fmt.Sprintf("run %d: member %d %s", run.Number, m.N, m.Reason)})
		case m.How == results.MemberFailed:
			name := fmt.Sprintf("run %d: member %d failed", run.Number, m.N)
			if m.Reason != "" {
				name += ": " + m.Reason
			}
			f.marks = append(f.marks, memberMark{At: since(run, m.End), Crash: true, Short: fmt.Sprintf("member %d failed", m.N), Name: name})
		}
		if i > 0 {
			f.marks = append(f.marks, memberMark{At: since(run, m.Start),
				Short: fmt.Sprintf("member %d started", m.N), Name: fmt.Sprintf("run %d: member %d started (pid %d)", run.Number, m.N, m.PID)})
		}
	}
	// A crash event of a member the group does not list.
	var rest []int
	for n := range crashed {
		rest = append(rest, n)
	}
	sort.Ints(rest)
	for _, n := range rest {
		ev := crashed[n]
		f.marks = append(f.marks, memberMark{At: since(run, ev.At), Crash: true, Short: fmt.Sprintf("member %d crashed", n),
			Name: fmt.Sprintf("run %d: member %d crashed while handling %s (partition %d, offset %d)", run.Number, n, orDash(ev.ID), ev.Partition, ev.Offset)})
	}
	sort.SliceStable(f.marks, func(i, j int) bool { return f.marks[i].At < f.marks[j].At })
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func eventAt(e results.ConsumerEvent) time.Time { return e.At }
func sampleAt(s results.OffsetSample) time.Time { return s.At }

// sortedByTime is s in time order (members report in order, but two
// members' reports, or samples and reports, may interleave); s itself when
// it already is.
func sortedByTime[T any](s []T, at func(T) time.Time) []T {
	less := func(a, b T) int { return at(a).Compare(at(b)) }
	if slices.IsSortedFunc(s, less) {
		return s
	}
	out := slices.Clone(s)
	slices.SortStableFunc(out, less)
	return out
}

func sortedMembers(ms []results.Member) []results.Member {
	out := slices.Clone(ms)
	slices.SortStableFunc(out, func(a, b results.Member) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return a.N - b.N
	})
	return out
}

// groupExpectations are the run's expectations on the group labelled
// label: those whose function measures a group, of that label.
func groupExpectations(run results.Run, label string) []results.Expectation {
	var out []results.Expectation
	for _, e := range run.Expectations {
		open, shut := strings.IndexByte(e.Expr, '('), strings.IndexByte(e.Expr, ')')
		if open < 0 || shut < open {
			continue
		}
		m := results.FindMeasure(strings.TrimSpace(e.Expr[:open]))
		if m != nil && m.Group && strings.TrimSpace(e.Expr[open+1:shut]) == label {
			out = append(out, e)
		}
	}
	return out
}

func groupRowOf(run results.Run, c *results.Consumer, f groupFacts) groupRow {
	row := groupRow{Run: strconv.Itoa(run.Number), Ran: true, Held: true, Committed: "–"}
	for _, m := range f.marks {
		if m.Crash {
			row.Crashes++
		}
	}
	for _, e := range groupExpectations(run, c.Label) {
		row.Expects++
		if !e.Held {
			row.Held = false
			row.Exprs = append(row.Exprs, e.Expr+" (was "+e.Actual+")")
		}
	}
	t := c.Tally
	if t == nil {
		row.Delivered, row.Deliveries, row.Redeliv, row.Skipped, row.Effects = f.delivered, f.deliveries, len(f.redelivered), len(f.skipped), f.effects
		return row
	}
	row.Tallied = true
	row.Delivered, row.Deliveries, row.Redeliv = t.Delivered, t.Deliveries, len(t.Redelivered)
	row.Applied, row.Twice, row.Skipped = t.Applied, len(t.AppliedTwice), len(t.Skipped)
	row.Unapplied, row.Pending = len(t.Unapplied), len(t.Pending)
	var end int64
	for _, o := range t.End {
		end += max(o, 0)
	}
	row.Committed = fmt.Sprintf("%d / %d", t.CommittedTotal(), end)
	row.StoreTotal, row.Effects = t.StoreTotal, t.Effects
	return row
}

// measureSummary is the meaning of an expect function, from the one table.
func measureSummary(name string) string {
	if m := results.FindMeasure(name); m != nil {
		return m.Summary
	}
	return ""
}

func groupRunOf(run results.Run, c *results.Consumer, f groupFacts, open bool) groupRun {
	g := groupRun{Run: run.Number, Open: open, Store: c.Store}
	t := c.Tally
	count := func(n int) string { return strconv.Itoa(n) }
	warnIf := func(n int, class string) string {
		if n > 0 {
			return class
		}
		return ""
	}
	if t == nil {
		g.Note = "This group was not tallied (the run stopped before the end): the numbers below come from what its members reported; " +
			"what the store holds, and so what was applied, lost or is still pending, is not known."
		g.Tallies = []tallyRow{
			{Name: "delivered", Func: "delivered", Value: count(f.delivered), Meaning: measureSummary("delivered")},
			{Name: "deliveries", Value: count(f.deliveries), Meaning: "every hand-over to a member, redeliveries included"},
			{Name: "redelivered", Func: "redelivered", Value: count(len(f.redelivered)), Class: warnIf(len(f.redelivered), "warn"),
				IDs: idItems(f.redelivered), More: moreIDs(f.redelivered), Meaning: measureSummary("redelivered")},
			{Name: "effects reported", Value: count(f.effects), Meaning: "effect events the members reported: each one an effect committed to the store"},
			{Name: "skipped", Func: "skipped", Value: count(len(f.skipped)), IDs: idItems(f.skipped), More: moreIDs(f.skipped), Meaning: measureSummary("skipped")},
			{Name: "committed", Func: "committed", Value: strconv.FormatInt(sumOffsets(f.committed), 10),
				Detail: partitionList(f.committed, nil), Meaning: "the last committed offsets the members reported or the admin API returned, summed over the partitions"},
		}
	} else {
		g.Tallies = []tallyRow{
			{Name: "delivered", Func: "delivered", Value: count(t.Delivered), Meaning: measureSummary("delivered")},
			{Name: "deliveries", Value: count(t.Deliveries), Meaning: "every hand-over to a member, redeliveries included"},
			{Name: "redelivered", Func: "redelivered", Value: count(len(t.Redelivered)), Class: warnIf(len(t.Redelivered), "warn"),
				IDs: idItems(t.Redelivered), More: moreIDs(t.Redelivered), Meaning: measureSummary("redelivered")},
			{Name: "applied", Func: "applied", Value: count(t.Applied), Meaning: measureSummary("applied")},
			{Name: "applied twice", Func: "applied_twice", Value: count(len(t.AppliedTwice)), Class: warnIf(len(t.AppliedTwice), "bad"),
				IDs: appliedTwice(t.AppliedTwice, f.effectsAt), More: max(len(t.AppliedTwice)-maxGroupIDs, 0), Meaning: measureSummary("applied_twice")},
			{Name: "skipped", Func: "skipped", Value: count(len(t.Skipped)), IDs: idItems(t.Skipped), More: moreIDs(t.Skipped), Meaning: measureSummary("skipped")},
			{Name: "unapplied", Func: "unapplied", Value: count(len(t.Unapplied)), Class: warnIf(len(t.Unapplied), "bad"),
				IDs: idItems(t.Unapplied), More: moreIDs(t.Unapplied), Meaning: measureSummary("unapplied")},
			{Name: "pending", Func: "pending", Value: count(len(t.Pending)), Class: warnIf(len(t.Pending), "warn"),
				IDs: idItems(t.Pending), More: moreIDs(t.Pending), Meaning: measureSummary("pending")},
			{Name: "committed early", Func: "committed_early", Value: count(len(t.CommittedEarly)), Class: warnIf(len(t.CommittedEarly), "warn"),
				IDs: idItems(t.CommittedEarly), More: moreIDs(t.CommittedEarly), Meaning: measureSummary("committed_early")},
			committedRow(t),
			storeRow(t),
		}
		if t.EOS != nil {
			g.Tallies = append(g.Tallies, eosRows(t.EOS)...)
		}
		if c.Dedup != "" && c.Dedup != "none" {
			row := tallyRow{Name: "event_handled", Value: count(t.Handled),
				Meaning: "event ids in the store's event_handled table: one per applied event, unless a member died between an effect and its insert"}
			if t.Handled < t.Applied {
				row.Class = "warn"
				row.Detail = fmt.Sprintf("%d applied event%s never recorded as handled", t.Applied-t.Handled, plural(t.Applied-t.Handled))
			}
			g.Tallies = append(g.Tallies, row)
		}
	}
	members := sortedMembers(c.Members)
	for i, m := range members {
		if i == maxMemberRows {
			g.MoreMembers = len(members) - i
			break
		}
		row := memberRow{N: m.N, PID: strconv.Itoa(m.PID), Start: relTime(run, m.Start), End: "–", How: m.How, Reason: m.Reason, Errors: m.ClientErrors}
		if m.PID <= 0 {
			row.PID = "–"
		}
		if !m.End.IsZero() {
			row.End = relTime(run, m.End)
		}
		switch m.How {
		case "":
			row.How = "running when the evidence ends"
			if !m.End.IsZero() {
				row.How = "ended"
			}
		case results.MemberCrashed, results.MemberFailed:
			row.Class = "bad"
		}
		g.Members = append(g.Members, row)
	}
	g.Summary = groupRunSummary(c, f)
	return g
}

// groupRunSummary is the line that heads a run's details: what went wrong.
func groupRunSummary(c *results.Consumer, f groupFacts) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	if t := c.Tally; t != nil {
		add(len(t.Unapplied), "unapplied (lost in the consumer)")
		add(len(t.AppliedTwice), "applied twice")
		add(len(t.Redelivered), "redelivered")
		add(len(t.Skipped), "skipped by dedup")
		add(len(t.Pending), "pending")
		add(len(t.CommittedEarly), "committed early")
	} else {
		parts = append(parts, "not tallied")
	}
	crashes := 0
	for _, m := range f.marks {
		if m.Crash {
			crashes++
		}
	}
	if crashes == 1 {
		parts = append(parts, "1 member crashed")
	} else {
		add(crashes, "members crashed")
	}
	n := len(c.Members)
	parts = append(parts, fmt.Sprintf("%d member%s", n, plural(n)))
	if t := c.Tally; t != nil && len(t.Unapplied)+len(t.AppliedTwice)+len(t.Redelivered)+len(t.Pending)+len(t.Skipped) == 0 {
		parts = append([]string{fmt.Sprintf("all %d delivered, applied once", t.Delivered)}, parts...)
	}
	return strings.Join(parts, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// committedRow compares the committed offset of every partition with its
// log end offset.
func committedRow(t *results.ConsumerTally) tallyRow {
	row := tallyRow{Name: "committed", Func: "committed", Value: strconv.FormatInt(t.CommittedTotal(), 10),
		Detail:  partitionList(t.Committed, t.End),
		Meaning: measureSummary("committed") + ", against each partition's log end offset"}
	for p, e := range t.End {
		if t.Committed[p] < e {
			row.Class = "warn"
		}
	}
	return row
}

// partitionList says each partition's committed offset, and with end its
// log end offset: "partition 0: 10 of 10; partition 1: 4 of 7 (3 behind)".
func partitionList(committed, end map[int32]int64) string {
	var ps []int32
	for p := range committed {
		ps = append(ps, p)
	}
	for p := range end {
		if _, ok := committed[p]; !ok {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	var parts []string
	for i, p := range ps {
		if i == maxPartitions {
			parts = append(parts, fmt.Sprintf("and %d more", len(ps)-i))
			break
		}
		c, ok := committed[p]
		cs := strconv.FormatInt(c, 10)
		if !ok || c < 0 {
			cs, c = "none", 0
		}
		if end == nil {
			parts = append(parts, fmt.Sprintf("partition %d: %s", p, cs))
			continue
		}
		e, ok := end[p]
		if !ok {
			parts = append(parts, fmt.Sprintf("partition %d: %s of an unknown end", p, cs))
			continue
		}
		s := fmt.Sprintf("partition %d: %s of %d", p, cs, e)
		if c < e {
			s += fmt.Sprintf(" (%d behind)", e-c)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func sumOffsets(m map[int32]int64) int64 {
	var n int64
	for _, o := range m {
		n += max(o, 0)
	}
	return n
}

// storeRow compares the store's effects with the effect events reported.
func storeRow(t *results.ConsumerTally) tallyRow {
	row := tallyRow{Name: "store total vs effects", Value: fmt.Sprintf("%d vs %d", t.StoreTotal, t.Effects),
		Meaning: "the store's applied counts summed (one per effect) against the effect events the members reported"}
	var detail []string
	switch d := t.StoreTotal - int64(t.Effects); {
	case d == 0:
		detail = append(detail, "they agree")
	case d > 0:
		row.Class = "warn"
		detail = append(detail, fmt.Sprintf("the store holds %d effect%s no member reported: a member died between an effect and its report", d, plural(int(d))))
	default:
		row.Class = "bad"
		detail = append(detail, fmt.Sprintf("the members reported %d effect%s the store does not hold", -d, plural(int(-d))))
	}
	if len(t.Likes) > 0 {
		keys := make([]string, 0, len(t.Likes))
		for k := range t.Likes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var likes []string
		for i, k := range keys {
			if i == maxGroupKeys {
				likes = append(likes, fmt.Sprintf("and %d more", len(keys)-i))
				break
			}
			name := k
			if k == "" {
				name = "(no key)"
			}
			likes = append(likes, fmt.Sprintf("%s = %d", name, t.Likes[k]))
		}
		detail = append(detail, "like count per key: "+strings.Join(likes, ", "))
	}
	row.Detail = strings.Join(detail, "; ")
	return row
}

// idItems are the first maxGroupIDs of ids, moreIDs how many are left.
func idItems(ids []string) []idItem {
	out := make([]idItem, 0, min(len(ids), maxGroupIDs))
	for _, id := range ids[:min(len(ids), maxGroupIDs)] {
		out = append(out, idItem{ID: id})
	}
	return out
}

func moreIDs(ids []string) int { return max(len(ids)-maxGroupIDs, 0) }

// appliedTwice lists the first events applied more than once, how often,
// and when their effects were reported: "m-004", "×2 (effects at 13.200 s,
// 14.800 s)".
func appliedTwice(evs []results.AppliedEvent, at map[string][]time.Duration) []idItem {
	var out []idItem
	for _, e := range evs[:min(len(evs), maxGroupIDs)] {
		it := idItem{ID: e.Event, Note: fmt.Sprintf("×%d", e.Times)}
		if ts := at[e.Event]; len(ts) > 0 {
			var xs []string
			for j, d := range ts {
				if j == maxEffectTimes {
					xs = append(xs, fmt.Sprintf("and %d more", len(ts)-j))
					break
				}
				xs = append(xs, fmt.Sprintf("%.3f s", d.Seconds()))
			}
			it.Note += " (effects at " + strings.Join(xs, ", ") + ")"
		}
		out = append(out, it)
	}
	return out
}

// The group chart.

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
