package report

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// consumerSim records one simulated run's consumer groups.
type consumerSim struct {
	*sim
	pid    int
	groups []*results.Consumer // attached to the run by done
}

// done attaches the groups to the run.
func (s *consumerSim) done() {
	for _, c := range s.groups {
		s.run.Consumers = append(s.run.Consumers, *c)
	}
}

// group declares a consumer group of the run, started by the consume step
// text at sec (member 1), and returns it.
func (s *consumerSim) group(text string, sec float64, label, commit, dedup string, settings map[string]string) *results.Consumer {
	pos := s.step(text, sec, sec+0.1, fmt.Sprintf("member 1 of group %s started (pid %d), reading likes", label, s.pid))
	c := &results.Consumer{Group: fmt.Sprintf("%s-r%d", label, s.run.Number), Label: label, Topic: "likes",
		Commit: commit, Dedup: dedup, Store: "consumers/" + label + ".sqlite", Pos: pos, Settings: settings,
		Members: []results.Member{}, Events: []results.ConsumerEvent{}, Offsets: []results.OffsetSample{}}
	s.groups = append(s.groups, c)
	s.member(c, sec)
	return c
}

// member starts the group's next member at sec.
func (s *consumerSim) member(c *results.Consumer, sec float64) {
	c.Members = append(c.Members, results.Member{N: len(c.Members) + 1, PID: s.pid, Start: s.at(sec)})
	s.pid++
}

// end ends member n at sec.
func (s *consumerSim) end(c *results.Consumer, n int, sec float64, how, reason string) {
	m := &c.Members[n-1]
	m.End, m.How, m.Reason = s.at(sec), how, reason
}

// ev records what member n did at sec with the record at offset (for a
// commit: the committed offset).
func (s *consumerSim) ev(c *results.Consumer, n int, sec float64, kind string, offset int64) {
	id := ""
	if kind != results.EventCommit {
		id = fmt.Sprintf("m-%03d", offset+1)
	}
	c.Events = append(c.Events, results.ConsumerEvent{At: s.at(sec), Member: n, Kind: kind, Partition: 0, Offset: offset, ID: id})
}

// samples records the committed offset the admin API returns every 0.5 s
// from..to: -1 before the first commit event, then the last one.
func (s *consumerSim) samples(c *results.Consumer, from, to float64) {
	for x := from; x <= to+1e-9; x += 0.5 {
		committed := int64(-1)
		for _, e := range c.Events {
			if e.Kind == results.EventCommit && !e.At.After(s.at(x)) {
				committed = e.Offset
			}
		}
		c.Offsets = append(c.Offsets, results.OffsetSample{At: s.at(x), Partition: 0, Committed: committed})
	}
}

// consumerFixture simulates the second article's broker→consumer zone
// (DESIGN.md §2) twice. Group greedy auto-commits everything polled
// (franz-go's GreedyAutoCommit, the article's timeline): its member polls
// all ten records at once, the auto-commit commits offset 10 after a
// second, and the member is killed while handling the fourth; member 2
// gets nothing, so m-004..m-010 are lost in the consumer. Group manual commits after
// each record: killed between the fourth record's effect and its commit,
// it hands m-004 to member 2 again, which applies it a second time.
func consumerFixture(src string) *results.Results {
	r := &results.Results{
		Schema: results.SchemaVersion, Complete: true,
		Title:   "Do consumers lose or repeat what they were given?",
		Runbook: results.Runbook{Name: "consumer-commits", Path: "examples/consumer-commits.md", SHA256: sha256Hex(src), File: "runbook.md"},
		Provenance: results.Provenance{Tool: "v0.1.0", Commit: "4e2a9c1", Kafka: "4.3.1", Backend: "local", Nodes: 3,
			Broker: map[string]string{}, FranzGo: "v1.22.3", Params: map[string]string{}, Host: "lab-1", GoVersion: "go1.26.8",
			Java: "17.0.13", Start: fixtureStart, Repeat: 2},
	}
	for n := 1; n <= 2; n++ {
		start := fixtureStart.Add(time.Duration(n-1) * 30 * time.Second).Add(2 * time.Second)
		run := &results.Run{Number: n, Start: start, Complete: true}
		s := &consumerSim{sim: &sim{run: run, pos: newStepPos("examples/consumer-commits.md", src), topic: map[string]*results.Topic{},
			log: map[string][]results.Record{}, seen: map[string]map[results.At]string{}}, pid: 4001 + 100*n}
		run.Topics = []results.Topic{{Name: fmt.Sprintf("likes-r%d", n), Label: "likes"}}
		s.topic["likes"] = &run.Topics[0]

		s.step("topic create likes --partitions 1 --replicas 1:2:3", 0, 0.4, "created likes (partitions=1 replicas=1:2:3)")
		out := s.produce("likes", "all", 1, 10, 0.5, 0.1, func(int) time.Duration { return 8 * time.Millisecond }, 0, 0)
		s.step("produce likes --acks all --count 10 --key p-1", 0.5, 1.6, out...)
		for _, m := range s.topic["likes"].Messages {
			s.log["likes"] = append(s.log["likes"], results.Record{ID: m.ID, Offset: m.Offset})
		}

		// greedy: one poll of ten, a second's work each, everything polled
		// committed every second.
		auto := s.group("consume likes --group greedy --commit greedy --auto-commit-interval 1s --batch 10 --work 1s --crash-at 4 --crash-point work &", 2.0,
			"greedy", "greedy", "none", map[string]string{"auto-commit-interval": "1s", "batch": "10", "work": "1s", "crash-at": "4", "crash-point": "work"})
		for off := int64(0); off < 10; off++ {
			s.ev(auto, 1, 2.2, results.EventDeliver, off)
		}
		s.ev(auto, 1, 3.0, results.EventCommit, 10) // everything polled, processed or not
		for off := int64(0); off < 3; off++ {
			s.ev(auto, 1, 3.2+float64(off), results.EventEffect, off)
		}
		s.ev(auto, 1, 5.7, results.EventCrash, 3) // half-way through m-004's work
		s.end(auto, 1, 5.7, results.MemberCrashed, "--crash-at 4: SIGKILL during the work of the 4th message")
		s.step("sleep 5s", 2.1, 7.1)
		s.step("start consumer greedy", 7.1, 7.2, fmt.Sprintf("member 2 of group greedy started (pid %d)", s.pid))
		s.member(auto, 7.1)
		s.step("sleep 3s", 7.2, 10.2)
		s.step("offsets greedy", 10.2, 10.3, "greedy partition 0: committed 10, end offset 10")
		s.step("stop consumer greedy", 10.3, 10.4, "member 2 of group greedy stopped")
		s.end(auto, 2, 10.4, results.MemberStopped, "stop consumer")
		s.samples(auto, 2.0, 10.4)
		s.expect("expect unapplied(greedy) > 0", 10.5, "7", true)

		// manual: commit after each record; killed after m-004's effect.
		manual := s.group("consume likes --group manual --commit after --batch 10 --work 500ms --crash-at 4 --crash-point effect &", 11.0,
			"manual", "after", "none", map[string]string{"batch": "10", "work": "500ms", "crash-at": "4", "crash-point": "effect"})
		for off := int64(0); off < 10; off++ {
			s.ev(manual, 1, 11.2, results.EventDeliver, off)
		}
		for off := int64(0); off < 4; off++ {
			at := 11.7 + 0.5*float64(off)
			s.ev(manual, 1, at, results.EventEffect, off)
			if off < 3 {
				s.ev(manual, 1, at+0.01, results.EventCommit, off+1)
			}
		}
		s.ev(manual, 1, 13.2, results.EventCrash, 3)
		s.end(manual, 1, 13.2, results.MemberCrashed, "--crash-at 4: SIGKILL after the effect of the 4th message")
		s.step("sleep 3s", 11.1, 14.1)
		s.step("start consumer manual", 14.1, 14.2, fmt.Sprintf("member 2 of group manual started (pid %d)", s.pid))
		s.member(manual, 14.1)
		for off := int64(3); off < 10; off++ {
			s.ev(manual, 2, 14.3, results.EventDeliver, off)
		}
		for off := int64(3); off < 10; off++ {
			at := 14.8 + 0.5*float64(off-3)
			s.ev(manual, 2, at, results.EventEffect, off)
			s.ev(manual, 2, at+0.01, results.EventCommit, off+1)
		}
		s.step("wait consumer manual --timeout 30s", 14.2, 17.9, "group manual handled everything it was given; committed 10 of 10 after 3.7s")
		s.step("stop consumer manual", 18.0, 18.1, "member 2 of group manual stopped")
		s.end(manual, 2, 18.1, results.MemberStopped, "stop consumer")
		s.step("offsets manual", 18.2, 18.3, "manual partition 0: committed 10, end offset 10")
		s.samples(manual, 11.0, 18.0)
		s.expect("expect unapplied(manual) == 0", 18.4, "0", true)
		s.expect("expect redelivered(manual) == 7", 18.45, "7", true) // member 1 had polled all ten

		s.final(20.0, "likes")
		run.End = s.at(21.0)
		// The tallies as the engine makes them, from the events, the store
		// and the committed offsets after the run.
		applied := func(from, to int, twice ...int) map[string]int64 {
			m := map[string]int64{}
			for i := from; i <= to; i++ {
				m[fmt.Sprintf("m-%03d", i)] = 1
			}
			for _, i := range twice {
				m[fmt.Sprintf("m-%03d", i)]++
			}
			return m
		}
		offsets := map[int32]int64{0: 10}
		ta := results.TallyConsumer(auto.Events, applied(1, 3), map[string]int64{"p-1": 3}, 0, offsets, offsets)
		ta.At = s.at(21.2)
		auto.Tally = &ta
		tm := results.TallyConsumer(manual.Events, applied(1, 10, 4), map[string]int64{"p-1": 11}, 0, offsets, offsets)
		tm.At = s.at(21.3)
		manual.Tally = &tm
		s.done()
		r.Runs = append(r.Runs, *run)
	}
	r.Provenance.End = r.Runs[len(r.Runs)-1].End.Add(time.Second)
	return r
}

// TestConsumerFixture regenerates testdata/consumers/results.json with
// -update, and otherwise checks that the stored fixture is what the
// simulation makes and what the group measures read from it.
func TestConsumerFixture(t *testing.T) {
	want, got := simulated(t, filepath.Join("testdata", "consumers"), consumerFixture)
	want.Compact() // as Load does
	a, _ := json.Marshal(got.Runs)
	b, _ := json.Marshal(want.Runs)
	if string(a) != string(b) {
		t.Errorf("testdata/consumers/results.json is stale (go test ./report -run TestConsumerFixture -update)")
	}
	for _, c := range []struct {
		measure, group string
		want           int64
	}{{"unapplied", "greedy", 7}, {"applied", "greedy", 3}, {"committed", "greedy", 10}, {"delivered", "greedy", 10},
		{"committed_early", "greedy", 10}, {"committed_early", "manual", 0}, {"pending", "manual", 0},
		{"unapplied", "manual", 0}, {"applied_twice", "greedy", 0}, {"skipped", "manual", 0}, {"applied_twice", "manual", 1}, {"redelivered", "manual", 7}, {"applied", "manual", 10}} {
		v, ok := results.FindMeasure(c.measure).Of(got.Runs[1], c.group)
		if !ok || v != c.want {
			t.Errorf("%s(%s) = %d, %v; want %d", c.measure, c.group, v, ok, c.want)
		}
	}
	if held, runs := got.Verdict(); held != 2 || runs != 2 {
		t.Errorf("verdict %d of %d", held, runs)
	}
}

func consumerDir(tb testing.TB, edit func(*results.Results)) string {
	tb.Helper()
	src, err := os.ReadFile("testdata/consumers/runbook.md")
	if err != nil {
		tb.Fatal(err)
	}
	r := consumerFixture(string(src))
	if edit != nil {
		edit(r)
	}
	return writeRun(tb, r, string(src))
}

func renderPage(t *testing.T, dir string) string {
	t.Helper()
	if err := Render(dir, Options{Generator: "kafkabook test"}); err != nil {
		t.Fatal(err)
	}
	return mustRead(t, filepath.Join(dir, IndexFile))
}

// section returns the part of page from the element with id to the next
// element of the same tag.
func between(t *testing.T, page, start, end string) string {
	t.Helper()
	i := strings.Index(page, start)
	if i < 0 {
		t.Fatalf("page lacks %s", start)
	}
	j := strings.Index(page[i+len(start):], end)
	if j < 0 {
		return page[i:]
	}
	return page[i : i+len(start)+j]
}

// cells returns the text of a table row's cells (tags stripped), by the
// row's first cell.
func cells(t *testing.T, page, first string) []string {
	t.Helper()
	for _, row := range regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`).FindAllStringSubmatch(page, -1) {
		var out []string
		for _, c := range regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`).FindAllStringSubmatch(row[1], -1) {
			out = append(out, html.UnescapeString(strings.TrimSpace(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(c[1], ""))))
		}
		if len(out) > 0 && out[0] == first {
			return out
		}
	}
	t.Fatalf("no row starting with %q in %.400s", first, page)
	return nil
}

// lastY is the value a step line holds at x.
func lastY(pts [][2]float64, x float64) float64 {
	y := -1.0
	for _, p := range pts {
		if p[0] <= x {
			y = p[1]
		}
	}
	return y
}

// TestConsumerSection renders the fixture: per group its modes, a row per
// run, the chart's three lines with the crash marked, and run 1's tally
// with the ids, and the members.
func TestConsumerSection(t *testing.T) {
	page := renderPage(t, consumerDir(t, nil))
	if !strings.Contains(page, `<h2 id="consumers">Consumer groups</h2>`) {
		t.Fatal("no consumer section")
	}
	if i, j, k := strings.Index(page, `id="summary"`), strings.Index(page, `id="consumers"`), strings.Index(page, `id="charts"`); !(i < j && j < k) {
		t.Errorf("the consumer section is not between the summary and the charts")
	}

	auto := between(t, page, `<section class="group" id="group-1">`, `<section class="group" id="group-2">`)
	for _, want := range []string{
		`<h3>group greedy <span class="muted">· topic likes</span></h3>`,
		`commit <code>greedy</code> — franz-go&#39;s greedy auto-commit`, `dedup <code>none</code>`,
		`<code>auto-commit-interval=1s</code>`, `<code>crash-at=4</code>`,
		`consume step at examples/consumer-commits.md:26:1`,
		`<details class="grouprun" open><summary>run 1: 7 unapplied (lost in the consumer), 10 committed early, 1 member crashed, 2 members</summary>`,
		`<details class="grouprun"><summary>run 2:`,
	} {
		if !strings.Contains(auto, want) {
			t.Errorf("group greedy lacks %s", want)
		}
	}
	// run, delivered, deliveries, redelivered, applied, applied twice, skipped, unapplied, pending, committed / end, store total, effects, crashes, expectations
	if got, want := strings.Join(cells(t, auto, "1"), "|"), "1|10|10|0|3|0|0|7|0|10 / 10|3|3|1|✓ held"; got != want {
		t.Errorf("greedy run 1 row: %s, want %s", got, want)
	}
	if got, want := strings.Join(cells(t, auto, "all"), "|"), "all|20|20|0|6|0|0|14|0||6|6|2|✓ held"; got != want {
		t.Errorf("greedy total row: %s, want %s", got, want)
	}
	run1 := between(t, auto, `<details class="grouprun" open>`, `</details>`)
	for first, want := range map[string]string{
		"unapplied unapplied(G)": "unapplied unapplied(G)|7|m-004 m-005 m-006 m-007 m-008 m-009 m-010|" + measureSummary("unapplied"),
		"applied applied(G)":     "applied applied(G)|3||" + measureSummary("applied"),
		"committed committed(G)": "committed committed(G)|10|partition 0: 10 of 10|" + measureSummary("committed") + ", against each partition's log end offset",
		"store total vs effects": "store total vs effects|3 vs 3|they agree; like count per key: p-1 = 3|the store's applied counts summed (one per effect) against the effect events the members reported",
		"deliveries":             "deliveries|10||every hand-over to a member, redeliveries included",
	} {
		if got := strings.Join(cells(t, run1, first), "|"); got != want {
			t.Errorf("greedy run 1 tally row:\n got %s\nwant %s", got, want)
		}
	}
	if got, want := strings.Join(cells(t, run1, "1"), "|"), "1|4101|2.000 s|5.700 s|crashed|--crash-at 4: SIGKILL during the work of the 4th message"; got != want {
		t.Errorf("greedy member 1: %s, want %s", got, want)
	}
	if got, want := strings.Join(cells(t, run1, "2"), "|"), "2|4102|7.100 s|10.400 s|stopped|stop consumer"; got != want {
		t.Errorf("greedy member 2: %s, want %s", got, want)
	}

	manual := between(t, page, `<section class="group" id="group-2">`, `<h2 id="charts">`)
	if got, want := strings.Join(cells(t, manual, "2"), "|"), "2|10|17|7|10|1|0|0|0|10 / 10|11|11|1|✓ held"; got != want {
		t.Errorf("manual run 2 row: %s, want %s", got, want)
	}
	run1 = between(t, manual, `<details class="grouprun" open>`, `</details>`)
	if got, want := strings.Join(cells(t, run1, "applied twice applied_twice(G)"), "|"),
		"applied twice applied_twice(G)|1|m-004 ×2 (effects at 13.200 s, 14.800 s)|"+measureSummary("applied_twice"); got != want {
		t.Errorf("manual applied twice:\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(cells(t, run1, "redelivered redelivered(G)"), "|"); !strings.HasPrefix(got, "redelivered redelivered(G)|7|m-004 m-005 m-006 m-007 m-008 m-009 m-010|") {
		t.Errorf("manual redelivered: %s", got)
	}

	// The chart: run 1 shown, run 2 in the legend; the lines as the
	// members reported them; the crash and the second member marked.
	o := islandOf(t, page, "chart-group-1")
	series := o["series"].([]any)
	if len(series) != 6 {
		t.Fatalf("group greedy: %d series, want 6 (3 lines × 2 runs)", len(series))
	}
	var names []string
	for _, s := range series {
		names = append(names, s.(map[string]any)["name"].(string))
	}
	if got := strings.Join(names, ", "); got != "run 1 · delivered, run 1 · applied, run 1 · committed, run 2 · delivered, run 2 · applied, run 2 · committed" {
		t.Errorf("series %s", got)
	}
	sel := o["legend"].(map[string]any)["selected"].(map[string]any)
	if sel["run 1 · applied"] != true || sel["run 2 · applied"] != false {
		t.Errorf("legend selection %v", sel)
	}
	pts := points(o)
	for _, c := range []struct {
		line int
		x, y float64
	}{
		{0, 2.1, 0}, {0, 2.2, 10}, {0, 10.4, 10}, // delivered: ten in one poll
		{1, 3.1, 0}, {1, 3.2, 1}, {1, 5.2, 3}, {1, 10.4, 3}, // applied: three, then the crash
		{2, 2.9, 0}, {2, 3.0, 10}, {2, 10.4, 10}, // committed: all ten at the first auto-commit
	} {
		if y := lastY(pts[c.line], c.x); y != c.y {
			t.Errorf("group greedy, %s at %.1f s = %v, want %v", names[c.line], c.x, y, c.y)
		}
	}
	if last := pts[1][len(pts[1])-1]; last[0] != 10.4 {
		t.Errorf("applied line ends at %v, want at 10.4 s (member 2 stopped)", last)
	}
	ml := series[0].(map[string]any)["markLine"].(map[string]any)["data"].([]any)
	var marks []string
	for _, m := range ml {
		mm := m.(map[string]any)
		marks = append(marks, fmt.Sprintf("%v@%v", mm["label"].(map[string]any)["formatter"], mm["xAxis"]))
	}
	if got := strings.Join(marks, ", "); got != "member 1 crashed@5.7, member 2 started@7.1" {
		t.Errorf("group greedy marks: %s", got)
	}
	if name := ml[0].(map[string]any)["name"]; name != "run 1: member 1 crashed while handling m-004 (partition 0, offset 3): --crash-at 4: SIGKILL during the work of the 4th message" {
		t.Errorf("crash tooltip %q", name)
	}
	pts = points(islandOf(t, page, "chart-group-2"))
	for _, c := range []struct {
		line int
		x, y float64
	}{
		{1, 13.2, 4}, {2, 13.2, 3}, {2, 14.0, 3}, // applied m-004, committed 3: the crash between
		{0, 14.3, 10}, {1, 14.8, 4}, {1, 17.8, 10}, {2, 17.81, 10},
	} {
		if y := lastY(pts[c.line], c.x); y != c.y {
			t.Errorf("group manual, line %d at %.2f s = %v, want %v", c.line, c.x, y, c.y)
		}
	}
}

// TestConsumerFaultShading: the group chart shades the run's fault
// windows, as the other time charts do.
func TestConsumerFaultShading(t *testing.T) {
	page := renderPage(t, consumerDir(t, func(r *results.Results) {
		run := &r.Runs[0]
		run.Faults = append(run.Faults, results.Fault{At: run.Start.Add(4 * time.Second), Op: "kill", Nodes: []string{"k2"}, Pos: "x.md:1:1"},
			results.Fault{At: run.Start.Add(6 * time.Second), Op: "start", Nodes: []string{"k2"}, Pos: "x.md:2:1"})
	}))
	s := islandOf(t, page, "chart-group-1")["series"].([]any)[0].(map[string]any)
	ma, ok := s["markArea"].(map[string]any)
	if !ok {
		t.Fatal("no fault window on the group chart")
	}
	from := ma["data"].([]any)[0].([]any)[0].(map[string]any)
	if from["xAxis"] != 4.0 || from["label"].(map[string]any)["formatter"] != "k2 killed" {
		t.Errorf("window %v", from)
	}
}

// TestConsumerNoTally: a group whose run stopped before its tally shows
// what the members reported, and says so; a run without the group says
// that.
func TestConsumerNoTally(t *testing.T) {
	page := renderPage(t, consumerDir(t, func(r *results.Results) {
		r.Runs[0].Consumers[1].Tally = nil
		r.Runs[1].Consumers = r.Runs[1].Consumers[:1]
	}))
	manual := between(t, page, `<section class="group" id="group-2">`, `<h2 id="charts">`)
	if got := strings.Join(cells(t, manual, "2"), "|"); got != "2|this run had no such group" {
		t.Errorf("run 2 without the group: %s", got)
	}
	if n := len(islandOf(t, page, "chart-group-2")["series"].([]any)); n != 3 {
		t.Errorf("%d series for one run of the group, want 3", n)
	}
	if got, want := strings.Join(cells(t, manual, "1"), "|"), "1|10|17|7|not tallied|11|1|✓ held"; got != want {
		t.Errorf("untallied row: %s, want %s", got, want)
	}
	run1 := between(t, manual, `<details class="grouprun" open>`, `</details>`)
	for _, want := range []string{"This group was not tallied", "not tallied, 1 member crashed, 2 members"} {
		if !strings.Contains(run1, want) {
			t.Errorf("untallied run lacks %q", want)
		}
	}
	if got := strings.Join(cells(t, run1, "committed committed(G)"), "|"); !strings.HasPrefix(got, "committed committed(G)|10|partition 0: 10|") {
		t.Errorf("committed from the events: %s", got)
	}
}

// TestNoConsumers: a page without consumer groups has no consumer
// section (the golden pages hold it too).
func TestNoConsumers(t *testing.T) {
	page := renderPage(t, acksDir(t))
	for _, bad := range []string{`id="consumers"`, `class="group"`, "chart-group-"} {
		if strings.Contains(page, bad) {
			t.Errorf("page without consumers holds %s", bad)
		}
	}
}

// hostileConsumers puts the payload into everything of a group that came
// from outside: its labels, settings, ids, event ids, the store's keys,
// members' reasons and their clients' error lines.
func hostileConsumers(r *results.Results) {
	for ri := range r.Runs {
		run := &r.Runs[ri]
		for i := range run.Consumers {
			c := &run.Consumers[i]
			c.Label += payload
			c.Topic += payload
			c.Commit, c.Dedup, c.Pos = payload, payload, payload
			c.Settings[payload] = payload
			c.Members[0].Reason = payload
			c.Members[0].How = payload
			c.Members[0].ClientErrors = []string{payload}
			for j := range c.Events {
				c.Events[j].ID = payload
				c.Events[j].Event = payload
			}
			tl := c.Tally
			tl.Unapplied = append(tl.Unapplied, payload)
			tl.Pending = append(tl.Pending, payload)
			tl.Redelivered = append(tl.Redelivered, payload)
			tl.Skipped = append(tl.Skipped, payload)
			tl.AppliedTwice = append(tl.AppliedTwice, results.AppliedEvent{Event: payload, Times: 3})
			tl.Likes[payload] = 1
		}
		for j := range run.Expectations {
			run.Expectations[j].Actual = payload
		}
	}
}

func TestConsumerEscaping(t *testing.T) {
	dir := consumerDir(t, hostileConsumers)
	for _, single := range []bool{false, true} {
		if err := Render(dir, Options{SingleFile: single}); err != nil {
			t.Fatal(err)
		}
		page := mustRead(t, filepath.Join(dir, IndexFile))
		for _, bad := range []string{"<script>window", "<img", `onerror="`, "<!--"} {
			if i := strings.Index(page, bad); i >= 0 && !inEcharts(page, i) {
				t.Errorf("single=%v: page holds %q unescaped near %q", single, bad, around(page, i))
			}
		}
		scripts := 0
		for i := 0; ; {
			j := strings.Index(page[i:], "<script")
			if j < 0 {
				break
			}
			i += j
			if !inEcharts(page, i) {
				scripts++
				if !ourScripts.MatchString(page[i:]) {
					t.Errorf("single=%v: foreign script element near %q", single, around(page, i))
				}
			}
			i++
		}
		if want := consumerCharts + 2; scripts != want { // a data island a chart (two of them groups'), echarts, init
			t.Errorf("single=%v: %d script elements, want %d", single, scripts, want)
		}
		for _, want := range []string{
			"<h3>group greedy&lt;/script&gt;&lt;script&gt;window.pwned=1",
			`<code class="id">m-010</code> <code class="id">&lt;/script&gt;&lt;script&gt;window.pwned=1`,
			`<code class="id">&lt;/script&gt;&lt;script&gt;window.pwned=1&lt;/script&gt;&lt;img src=x onerror=&#34;window.pwned=2&#34;&gt;&lt;!--</code> ×3`,
			`<td class="l">&lt;/script&gt;&lt;script&gt;window.pwned=1`,                                                                  // a member's reason
			`<code>&lt;/script&gt;&lt;script&gt;window.pwned=1&lt;/script&gt;&lt;img src=x onerror=&#34;window.pwned=2&#34;&gt;&lt;!--=`, // a setting
		} {
			if !strings.Contains(page, want) {
				t.Errorf("single=%v: the payload is not shown escaped: %s", single, want)
			}
		}
	}
}

// TestConsumerThin: a group of 200,000 deliveries in a minute draws a few
// thousand points a line, and ends where the last one took it.
func TestConsumerThin(t *testing.T) {
	start := fixtureStart
	c := results.Consumer{Label: "big", Topic: "t", Members: []results.Member{{N: 1, PID: 1, Start: start, End: start.Add(60 * time.Second), How: "stopped"}}}
	const n = 200_000
	c.Events = make([]results.ConsumerEvent, 0, 2*n)
	for i := range n {
		at := start.Add(time.Duration(i) * 250 * time.Microsecond)
		c.Events = append(c.Events, results.ConsumerEvent{At: at, Kind: results.EventDeliver, Offset: int64(i)},
			results.ConsumerEvent{At: at.Add(time.Millisecond), Kind: results.EventEffect, Offset: int64(i)})
	}
	run := results.Run{Number: 1, Start: start, End: start.Add(60 * time.Second), Consumers: []results.Consumer{c}}
	lines := groupLines(run, &run.Consumers[0], niceCeil(60*time.Second/targetIntervals))
	for k, l := range lines {
		if len(l) > 4*targetIntervals+2 {
			t.Errorf("line %d: %d points", k, len(l))
		}
		if top := l[len(l)-1]; k < 2 && (top[1] != n || top[0] != 60) {
			t.Errorf("line %d ends at %v, want %d at 60 s", k, top, n)
		}
	}
}

// TestSiteListsEveryRunbook: every runbook with a run directory is in the
// site index, whatever its name, with its groups' headlines when it has
// consumer groups, and runbooks without them look as before.
func TestSiteListsEveryRunbook(t *testing.T) {
	site, _ := fixtureSite(t)
	for _, name := range []string{"producer-idempotence", "min-insync", "power-loss"} {
		dir := mkRunDir(t, "testdata/acks", site, name, "4.3.1", "20261201T000000Z")
		r, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		r.Runbook.Name, r.Title = name, "Title of "+name
		if err := r.Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile("testdata/consumers/runbook.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"4.3.1", "4.4.0"} {
		dir := filepath.Join(site, "consumer-commits", "kafka-"+v, "20261201T000000Z")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		r := consumerFixture(string(src))
		r.Provenance.Kafka = v
		if err := r.Write(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "runbook.md"), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	idx := mustRead(t, filepath.Join(site, IndexFile))
	for _, name := range []string{"consumer-commits", "min-insync", "power-loss", "producer-acks", "producer-idempotence"} {
		if !strings.Contains(idx, `id="rb-`+name+`"`) {
			t.Errorf("the index lacks runbook %s", name)
		}
	}
	for _, want := range []string{
		`href="consumer-commits/kafka-4.3.1/20261201T000000Z/index.html"`, `href="consumer-commits/kafka-4.4.0/20261201T000000Z/index.html"`,
		`href="power-loss/kafka-4.3.1/20261201T000000Z/index.html"`,
		`<th>group greedy: unapplied per run</th><th>group greedy: applied twice per run</th>`,
		`<td>7, 7</td><td>0, 0</td><td>0, 0</td><td>1, 1</td>`,
	} {
		if !strings.Contains(idx, want) {
			t.Errorf("the index lacks %s", want)
		}
	}
	rb := between(t, idx, `id="rb-producer-acks"`, `</section>`)
	if strings.Contains(rb, "group ") {
		t.Errorf("a runbook without groups shows group columns")
	}
}

// TestConsumerSectionGolden compares the fixture's consumer section with a
// golden file, so that its structure only changes when someone means it to.
func TestConsumerSectionGolden(t *testing.T) {
	page := renderPage(t, consumerDir(t, nil))
	golden(t, "consumers.html", []byte(between(t, page, `<h2 id="consumers">`, `<h2 id="charts">`)))
}

// TestCrashMarks: a member killed by crash consumer (no crash event) is
// marked at its end with its reason, a crash event at its record, a
// member that failed too, and later members' starts.
func TestCrashMarks(t *testing.T) {
	t0 := fixtureStart
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	c := results.Consumer{Label: "g", Members: []results.Member{
		{N: 1, PID: 10, Start: at(1), End: at(3), How: results.MemberCrashed, Reason: "crash consumer"},
		{N: 2, PID: 11, Start: at(4), End: at(6), How: results.MemberFailed, Reason: "store: disk full"},
		{N: 3, PID: 12, Start: at(7), End: at(9), How: results.MemberCrashed},
		{N: 4, PID: 13, Start: at(10)},
	}, Events: []results.ConsumerEvent{{At: at(8.5), Member: 3, Kind: results.EventCrash, Offset: 41, ID: "m-042"}}}
	run := results.Run{Number: 2, Start: t0, End: at(12), Consumers: []results.Consumer{c}}
	var got []string
	for _, m := range newGroupFacts(run, &run.Consumers[0]).marks {
		got = append(got, fmt.Sprintf("%v %v %s: %s", m.At.Seconds(), m.Crash, m.Short, m.Name))
	}
	want := []string{
		"3 true member 1 crashed: run 2: member 1 crashed: crash consumer",
		"4 false member 2 started: run 2: member 2 started (pid 11)",
		"6 true member 2 failed: run 2: member 2 failed: store: disk full",
		"7 false member 3 started: run 2: member 3 started (pid 12)",
		"8.5 true member 3 crashed: run 2: member 3 crashed while handling m-042 (partition 0, offset 41)",
		"10 false member 4 started: run 2: member 4 started (pid 13)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("marks:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Member 4 still runs: the group's lines go on to the run's end.
	if _, to := groupSpan(run, &run.Consumers[0]); to != 12*time.Second {
		t.Errorf("group span ends at %v, want 12s", to)
	}
}
