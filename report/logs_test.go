package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// section cuts a page from the first from up to to.
func section(t *testing.T, page, from, to string) string {
	t.Helper()
	i := strings.Index(page, from)
	j := strings.Index(page, to)
	if i < 0 || j < i {
		t.Fatalf("page lacks %s … %s", from, to)
	}
	return page[i:j]
}

// TestLogSectionGolden renders the acks fixture and compares its broker-log
// section with a golden file: the truncation that lost messages first, then
// ISR changes, leaders, fencing; controller records and no-op truncations
// folded; every line as captured at the end.
func TestLogSectionGolden(t *testing.T) {
	site := t.TempDir()
	dir := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261129T213500Z")
	if err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	page := mustRead(t, filepath.Join(dir, IndexFile))
	logs := section(t, page, `<h2 id="logs">`, `<h2 id="runbook">`)
	golden(t, "logs.html", []byte(logs))

	// The structure, stated outright so a careless -update cannot drop it.
	run1 := section(t, logs, `<details class="logs" open><summary>run 1:`, `<details class="logs"><summary>run 2:`)
	head := "<details class=\"logs\" open><summary>run 1: 38 lines — truncation 2, ISR 4, leader 4, fencing 4; folded: no-op truncation 8, other 16</summary>\n" +
		`<p class="finding"><strong>k1 truncated acks1-r1-0 to offset 10</strong> at 12.700 s: the records it held from offset 10 on were removed from it.` +
		` <span class="bad">10 of this run's lost messages had been acknowledged at those offsets</span>: <code>m-011 m-012 m-013 m-014 m-015 m-016 m-017 m-018 m-019 m-020</code>.</p>`
	if !strings.HasPrefix(run1, head) {
		t.Errorf("run 1's log section does not open with the truncation:\n%.600s", run1)
	}
	order := []string{
		`<div class="loggroup truncation"><h4>Truncation: records removed from a replica`,
		`<tr><td>12.702 s</td><td class="l">k1</td><td class="l"><code>[UnifiedLog partition=acks1-r1-0, dir=$KAFKABOOK_STATE/k1/data] Truncating to offset 10</code></td></tr>`,
		`<div class="loggroup isr"><h4>ISR shrink and expand`,
		`<tr><td>3.300 s</td><td class="l">k1</td><td class="l"><code>[Partition acks1-r1-0 broker=1] Shrinking ISR from 3,1,2 to 1.`,
		`<div class="loggroup leader"><h4>Leader changes and elections`,
		`<tr><td>10.400 s</td><td class="l">k2</td><td class="l"><code>[Broker id=2] Leader acks1-r1-0 with topic id`,
		`<div class="loggroup fencing"><h4>Fencing and broker state`,
		`<tr><td>10.300 s</td><td class="l">k3</td><td class="l"><code>[QuorumController id=3] Fencing broker 1 at epoch 10 because its session has timed out.</code>`,
		`<details class="loggroup noop"><summary>Truncations that removed nothing (8)</summary>`,
		`<details class="loggroup other"><summary>Other lines: metadata records replayed, state changes (16)</summary>`,
		`Replayed RegisterBrokerRecord establishing a new incarnation of broker 1`,
		`<details class="loggroup all"><summary>All 38 lines as captured</summary>`,
		`<code>[2026-11-29T21:35:14.702Z] INFO [UnifiedLog partition=acks1-r1-0, dir=$KAFKABOOK_STATE/k1/data] Truncating to offset 10 (org.apache.kafka.storage.internals.log.UnifiedLog)</code>`,
	}
	at := 0
	for _, want := range order {
		i := strings.Index(run1[at:], want)
		if i < 0 {
			t.Errorf("run 1's log section lacks, after the previous item, %s", want)
			continue
		}
		at += i + len(want)
	}
	// Controller records are never among the groups shown.
	if folded := strings.Index(run1, `<details class="loggroup`); strings.Contains(run1[:folded], "Replayed") {
		t.Errorf("a replayed controller record is shown unfolded")
	}
	// Runs on a reused cluster fold the lines about the topics of others.
	if !strings.Contains(logs, `<details class="loggroup otherruns"><summary>About topics of other runs (1)</summary>`) {
		t.Errorf("run 2's line about acks1-r1 is not set apart")
	}
	if !strings.Contains(logs, `<strong>k1 truncated acks1-r3-0 to offset 0</strong> at 12.700 s`) || !strings.Contains(logs, "20 of this run's lost messages") {
		t.Errorf("run 3's truncation to offset 0, which lost 20 messages, is not shown")
	}
}

// TestTruncationMarker: the acks example's evidence holds the line of
// the truncation that lost its messages, and both time charts mark it,
// named with the node, where it happened.
func TestTruncationMarker(t *testing.T) {
	if raw := mustRead(t, "testdata/acks/results.json"); !strings.Contains(raw, "] Truncating to offset 10") || !strings.Contains(raw, "] Truncating to offset 0") {
		t.Fatal("testdata/acks holds no truncation that removed records")
	}
	r, err := results.Load("testdata/acks")
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		ms := truncMarks(r, run)
		off := map[int]int{1: 10, 2: 10, 3: 0, 4: 0}[run.Number]
		lost := map[int]int{1: 10, 2: 10, 3: 20, 4: 20}[run.Number]
		want := fmt.Sprintf("run %d: k1 truncated acks1-r%d-0 to offset %d at 12.7 s, removing the records it held from there on; %d lost messages had been acknowledged there", run.Number, run.Number, off, lost)
		if len(ms) != 1 || ms[0].Short != "k1 truncated" || ms[0].Name != want || ms[0].At != 12700*time.Millisecond {
			t.Errorf("run %d: marks %+v\nwant one at 12.7 s: %s", run.Number, ms, want)
		}
	}
	steps := newStepIndex(nil)
	tl := newTimeline(r, r.Labels())
	for _, c := range []chart{throughputChart(r, tl, 0, steps, nil), latencyChart(r, tl, 0, steps, nil), isrChart(r, steps)} {
		js, err := json.Marshal(c.Options["series"])
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			`{"name":"run 1: k1 truncated acks1-r1-0 to offset 10 at 12.7 s, removing the records it held from there on; 10 lost messages had been acknowledged there","xAxis":12.7,"lineStyle":{"color":"#c62828","type":"solid","width":2},"label":{"show":true,"position":"insideStartTop","formatter":"k1 truncated","color":"#c62828","fontSize":10}}`,
		} {
			if !strings.Contains(string(js), want) {
				t.Errorf("%s lacks the truncation marker %s", c.ID, want)
			}
		}
	}
	site := t.TempDir()
	dir := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261129T213500Z")
	if err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(mustRead(t, filepath.Join(dir, IndexFile)), `"formatter":"k1 truncated"`); n != 5 {
		t.Errorf("%d truncation labels on the page, want 5 (each run's latency chart, and the ISR chart, where later runs' at the same place are left to their tooltips)", n)
	}
}

// TestLogGroups sorts lines of every kind, including the ones the acks
// fixture lacks: errors, a truncation whose log line was not captured, a
// truncation of another run's topic, a generic truncation.
func TestLogGroups(t *testing.T) {
	start := fixtureStart
	line := func(sec float64, node, text string) results.LogLine {
		at := start.Add(time.Duration(sec * float64(time.Second)))
		return results.LogLine{At: at, Node: node, Text: "[" + at.Format("2006-01-02T15:04:05.000Z") + "] " + text}
	}
	r := &results.Results{Runs: []results.Run{
		{Number: 1, Start: start, Topics: []results.Topic{{Name: "t-r1-ab12", Label: "t"}}},
		{Number: 2, Start: start, Topics: []results.Topic{{Name: "t-r2-ab12", Label: "t"}}},
	}}
	r.Runs[1].Logs = []results.LogLine{
		line(9, "k2", "INFO [Partition t-r1-ab12-0 broker=2] ISR updated to 2,3,1  and version updated to 6 (kafka.cluster.Partition)"),
		line(8, "k1", "ERROR [ReplicaManager broker=1] Error processing append operation on partition t-r2-ab12-0 (kafka.server.ReplicaManager)"),
		line(7, "k3", "INFO [ReplicaFetcher replicaId=3, leaderId=2, fetcherId=0] Truncating partition t-r2-ab12-0 with TruncationState(offset=4, completed=true) due to leader epoch and offset EpochEndOffset(errorCode=0, partition=0, leaderEpoch=0, endOffset=4) (kafka.server.ReplicaFetcherThread)"),
		line(6, "k1", "INFO [UnifiedLog partition=t-r1-ab12-0, dir=$KAFKABOOK_STATE/k1/data] Truncating to offset 3 (kafka.log.UnifiedLog)"),
		line(5, "k2", "INFO [ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0] Truncating partition t-r2-ab12-0 with TruncationState(offset=7, completed=true) due to local high watermark 7 (kafka.server.ReplicaFetcherThread)"),
		line(4, "k2", "INFO [Log partition=t-r2-ab12-0] Truncated 3 records"),
		line(3, "k1", "INFO [QuorumController id=1] Replayed BrokerRegistrationChangeRecord modifying the registration for broker 3: BrokerRegistrationChangeRecord(brokerId=3, brokerEpoch=11, fenced=1) (org.apache.kafka.controller.ClusterControlManager)"),
		line(2, "k1", "INFO [RaftManager id=1] Completed transition to Leader(localId=1, epoch=2) from Candidate(localId=1, epoch=2) (org.apache.kafka.raft.QuorumState)"),
		line(2.5, "k1", "INFO [QuorumController id=1] Becoming the active controller at epoch 2, next write offset 1. (org.apache.kafka.controller.QuorumController)"),
		line(1, "k3", "WARN [QuorumController id=3] Fencing broker 2 at epoch 12 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)"),
	}
	rl := runLogsOf(r, r.Runs[1], true, nil)
	got := map[string][]string{}
	for _, g := range rl.Groups {
		for _, l := range g.Lines {
			got[g.Class] = append(got[g.Class], l.At+" "+l.Node)
		}
	}
	want := map[string][]string{
		"truncation": {"4.000 s k2", "5.000 s k2", "7.000 s k3"},
		"leader":     {"2.000 s k1", "2.500 s k1"},
		"fencing":    {"1.000 s k3"},
		"error":      {"8.000 s k1"},
		"otherruns":  {"6.000 s k1", "9.000 s k2"},
		"other":      {"3.000 s k1"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups\n got %v\nwant %v", got, want)
	}
	if rl.Summary != "truncation 3, leader 2, fencing 1, error 1; folded: about other runs 2, other 1" {
		t.Errorf("summary %q", rl.Summary)
	}
	// Only the fetcher's cut to the leader's epoch end offset is known to
	// have removed records; the other run's truncation is not this run's.
	if len(rl.Findings) != 1 || rl.Findings[0].Node != "k3" || rl.Findings[0].Offset != 4 || rl.Findings[0].Partition != "t-r2-ab12-0" {
		t.Errorf("findings %+v", rl.Findings)
	}
	if ms := truncMarks(r, r.Runs[1]); len(ms) != 1 || ms[0].Short != "k3 truncated" || ms[0].At != 7*time.Second {
		t.Errorf("marks %+v", ms)
	}
	if l := rl.Groups[0].Lines[2]; l.Text != "[ReplicaFetcher replicaId=3, leaderId=2, fetcherId=0] Truncating partition t-r2-ab12-0 with TruncationState(offset=4, completed=true) due to leader epoch and offset EpochEndOffset(errorCode=0, partition=0, leaderEpoch=0, endOffset=4)" {
		t.Errorf("shown as %q", l.Text)
	}
	if l := rl.Groups[3].Lines[0]; !strings.HasPrefix(l.Text, "ERROR [ReplicaManager broker=1]") || !strings.HasPrefix(l.Full, "[2026-11-29T21:35:08.000Z] ERROR ") {
		t.Errorf("error line %+v", l)
	}
	for _, tc := range []struct {
		text, topic string
		want        bool
	}{
		{"partition t-r1-ab12-0 broker", "t-r1-ab12", true},
		{"partition t-r1-ab12-10)", "t-r1-ab12", true},
		{"partition t-r1-ab123-0", "t-r1-ab12", false},
		{"partition xt-r1-ab12-0", "t-r1-ab12", false},
		{"topic t-r1-ab12 created", "t-r1-ab12", false},
		{"t-r1-ab12-0", "t-r1-ab12", true},
	} {
		if got := mentionsTopic(tc.text, tc.topic); got != tc.want {
			t.Errorf("mentionsTopic(%q, %q) = %v", tc.text, tc.topic, got)
		}
	}
}

// TestNoMachinePaths: a page shows what the evidence says about the
// machine (placeholders such as $KAFKABOOK_STATE) and adds no path of its
// own: not the site's directory, not the working directory, not the home
// directory, not even when a runbook copy is missing. A copy that cannot
// be read as a file leaves the run out, with a message that names it.
func TestNoMachinePaths(t *testing.T) {
	site := t.TempDir()
	dir := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261129T213500Z")
	missing := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261129T213600Z")
	if err := os.Remove(filepath.Join(missing, "runbook.md")); err != nil {
		t.Fatal(err)
	}
	broken := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261129T213700Z")
	if err := os.Remove(filepath.Join(broken, "runbook.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(broken, "runbook.md"), 0o755); err != nil { // unreadable as a file
		t.Fatal(err)
	}
	var warned []error
	if err := RenderSite(site, Options{Warn: func(err error) { warned = append(warned, err) }}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0].Error(), broken) || fileExists(filepath.Join(broken, IndexFile)) {
		t.Errorf("a runbook.md that is a directory: warned %v, page written %v", warned, fileExists(filepath.Join(broken, IndexFile)))
	}
	single := filepath.Join(t.TempDir(), "single")
	if err := os.MkdirAll(single, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFiles(t, dir, single)
	if err := Render(single, Options{SingleFile: true}); err != nil {
		t.Fatal(err)
	}

	var forbidden []string
	for _, p := range []string{site, single} {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		forbidden = append(forbidden, abs, filepath.Dir(abs))
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			forbidden = append(forbidden, real)
		}
	}
	if wd, err := os.Getwd(); err == nil {
		forbidden = append(forbidden, wd)
	}
	if home, err := os.UserHomeDir(); err == nil && len(home) > 1 {
		forbidden = append(forbidden, home+"/")
	}
	forbidden = append(forbidden, "/.local/state/kafkabook", "/clusters/run")
	slices.Sort(forbidden)
	forbidden = slices.Compact(forbidden)

	pages := map[string]bool{ // report pages show the placeholder
		filepath.Join(dir, IndexFile):     true,
		filepath.Join(missing, IndexFile): true,
		filepath.Join(single, IndexFile):  true,
		filepath.Join(site, IndexFile):    false,
	}
	for p, report := range pages {
		page := mustRead(t, p)
		for _, bad := range forbidden {
			if i := strings.Index(page, bad); i >= 0 {
				t.Errorf("%s holds the machine path %q near %q", p, bad, around(page, i))
			}
		}
		if report && !strings.Contains(page, "dir=$KAFKABOOK_STATE/k1/data] Truncating to offset 10") {
			t.Errorf("%s does not show the state directory's placeholder", p)
		}
	}
	if page := mustRead(t, filepath.Join(missing, IndexFile)); !strings.Contains(page, "The stored runbook runbook.md is missing from this evidence;") {
		t.Errorf("the missing runbook's note is not there, or names more than the file")
	}
	// The evidence the pages come from names no machine path either.
	for _, f := range []string{"testdata/acks/results.json", "testdata/acks/runbook.md"} {
		raw := mustRead(t, f)
		for _, bad := range forbidden {
			if strings.Contains(raw, bad) {
				t.Errorf("%s holds the machine path %q", f, bad)
			}
		}
	}
}
