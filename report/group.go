package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

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
