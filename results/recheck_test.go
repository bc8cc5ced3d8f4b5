package results

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestRecordsJSON: a read's records survive their columns: message ids
// as numbers, other ids by index, offsets per partition, and a steady
// partition costs a few bytes whatever its length.
func TestRecordsJSON(t *testing.T) {
	var r Records
	for i := range 1000 {
		r.Add([]byte(MessageID(int64(i+1))), 0, int64(i))
	}
	r.Add([]byte("sentinel-x"), 0, 1000)
	r.Add([]byte("m-007"), 2, 5)
	r.Add([]byte("other id"), 1, 3)
	data, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 200 {
		t.Errorf("1003 records took %d bytes: %s", len(data), data)
	}
	var back Records
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Len() != r.Len() || !reflect.DeepEqual(back.Partition, r.Partition) || !reflect.DeepEqual(back.Offset, r.Offset) {
		t.Fatalf("records changed in JSON: %s", data)
	}
	for i := range r.Len() {
		if back.ID(i) != r.ID(i) {
			t.Errorf("record %d: id %q, want %q", i, back.ID(i), r.ID(i))
		}
	}
	for _, bad := range []string{
		`{"count":5,"partition":"0*5","offset":"1*4","num":"1*5"}`,           // a column short
		`{"count":99999999,"partition":"0","offset":"0","num":"0"}`,          // a count the bytes cannot hold
		`{"count":1,"partition":"0","offset":"0","num":"0","ids":{"3":"x"}}`, // an id past the end
		`{"count":1,"partition":"-2","offset":"0","num":"1"}`,                // no such partition
		`{"count":2,"partition":"0*2","offset":"5,-9","num":"1*2"}`,          // an offset below 0
		`{"count":2,"partition":"0*2","offset":"1*2","num":"1,-5"}`,          // a number below 0
	} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestRecheck: tallies derived from stored reads equal those the engine
// recorded from the same reads, through events.jsonl and back; a changed
// recorded verdict is a difference, and a tally without its read is
// counted as not derivable.
func TestRecheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), EventsFileName)
	w, err := CreateEvents(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	w.Emit(KindStart, 0, StartEvent{Schema: SchemaVersion, Title: "recheck"})
	w.Emit(KindRunStart, 1, RunStartEvent{})
	w.Emit(KindTopic, 1, Topic{Name: "t-1", Label: "t"})
	ledger := &Ledger{}
	for i := int64(1); i <= 10; i++ {
		ledger.Add(i, AcksLeader, false, t0, t0.Add(time.Millisecond), StatusOK, "", 0, i-1, 0)
	}
	w.Emit(KindMessages, 1, MessagesEvent{Topic: "t-1", Label: "t", Ledger: ledger})
	// A read step that sees m-001..m-006 (the high watermark is 6), then
	// the final read, where m-009 is gone: lost.
	var snap, fin Records
	for i := int64(1); i <= 6; i++ {
		snap.Add([]byte(MessageID(i)), 0, i-1)
	}
	for i := int64(1); i <= 10; i++ {
		if i != 9 {
			fin.Add([]byte(MessageID(i)), 0, i-1)
		}
	}
	fin.Add([]byte("sentinel-1"), 0, 10)
	reads := []ReadEvent{
		{Topic: "t-1", Label: "t", Pos: "r.md:9:1", At: t0.Add(time.Second), Settled: true, HighWatermarks: map[int32]int64{0: 6}, LedgerLen: 10, Records: &snap},
		{Topic: "t-1", Label: "t", Final: true, At: t0.Add(2 * time.Second), Settled: true, HighWatermarks: map[int32]int64{0: 11}, LedgerLen: 10, Records: &fin},
	}
	seen := &Seen{}
	var tallies []Tally
	for _, e := range reads {
		w.Emit(KindRead, 1, e)
		tl := e.Tally(w.Ledger(1, "t-1"), nil, seen)
		seen.Remember(e.Records)
		tallies = append(tallies, tl)
		w.Emit(KindTally, 1, tl)
	}
	if len(tallies[1].Lost) != 1 || tallies[1].Lost[0].ID != "m-009" || len(tallies[0].Unseen) != 4 {
		t.Fatalf("tallies: lost %v, unseen %v", tallies[1].Lost, tallies[0].Unseen)
	}
	// A read without its read event: evidence from before reads were
	// stored.
	w.Emit(KindTally, 1, Tally{Topic: "t-1", Label: "t", Pos: "r.md:12:1", Lost: []Loss{}})
	stored := endAndReplay(t, w, path)
	rep := Recheck(stored)
	if rep.Rechecked != 2 || rep.Underived != 1 || len(rep.Differences) != 0 {
		t.Fatalf("recheck of the run as recorded: %+v", rep)
	}
	// Evidence that says every read was stored has no tally without one.
	stored.Provenance.ReadsStored = true
	if rep := Recheck(stored); rep.Underived != 0 || len(rep.Differences) != 1 || rep.Differences[0].Field != "(read)" {
		t.Errorf("a tally without its read in evidence that stores reads: %+v", rep)
	}
	stored.Provenance.ReadsStored = false
	// A verdict that is not what its read shows.
	stored.Runs[0].Final[0].Lost = []Loss{}
	rep = Recheck(stored)
	if len(rep.Differences) != 1 || rep.Differences[0].Field != "lost" || !strings.Contains(rep.Differences[0].String(), "final read of t: lost recorded [], derived [{") {
		t.Errorf("recheck of a changed verdict: %+v", rep.Differences)
	}
}

// TestRecheckGroup: a group's tally derived from its stored input and its
// members' reports equals the one recorded from them, through
// events.jsonl and back; a changed recorded tally is a difference.
func TestRecheckGroup(t *testing.T) {
	path := filepath.Join(t.TempDir(), EventsFileName)
	w, err := CreateEvents(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	w.Emit(KindStart, 0, StartEvent{Schema: SchemaVersion, Title: "group", Provenance: Provenance{ReadsStored: true}})
	w.Emit(KindRunStart, 1, RunStartEvent{})
	w.Emit(KindConsumer, 1, Consumer{Group: "g-1", Label: "g", Topic: "t", Commit: "auto"})
	// m-001..m-003 delivered, m-001 and m-002 applied, offset 3
	// committed, then the member crashed: m-003 is unapplied.
	var evs []ConsumerEvent
	for i := int64(0); i < 3; i++ {
		evs = append(evs, ConsumerEvent{At: t0, Member: 1, Kind: EventDeliver, Offset: i, ID: MessageID(i + 1)})
	}
	for i := int64(0); i < 2; i++ {
		evs = append(evs, ConsumerEvent{At: t0, Member: 1, Kind: EventEffect, Offset: i, ID: MessageID(i + 1)})
	}
	evs = append(evs, ConsumerEvent{At: t0, Member: 1, Kind: EventCommit, Offset: 3})
	w.Emit(KindConsumerEvents, 1, ConsumerEventsEvent{Group: "g-1", Events: evs})
	in := GroupInput{Group: "g-1", At: t0.Add(time.Second), Events: len(evs), Store: true,
		Applied: map[string]int64{"m-001": 1, "m-002": 1}, Committed: map[int32]int64{0: 3}, End: map[int32]int64{0: 3}}
	w.Emit(KindGroupInput, 1, in)
	tally := in.Tally(evs)
	if len(tally.Unapplied) != 1 || tally.Unapplied[0] != "m-003" {
		t.Fatalf("unapplied %v, want m-003", tally.Unapplied)
	}
	w.Emit(KindConsumerTally, 1, ConsumerTallyEvent{Group: "g-1", Tally: tally})
	stored := endAndReplay(t, w, path)
	if rep := Recheck(stored); rep.Rechecked != 1 || rep.Underived != 0 || len(rep.Differences) != 0 {
		t.Fatalf("recheck of the group as recorded: %+v", rep)
	}
	stored.Runs[0].Consumers[0].Tally.Unapplied = []string{}
	rep := Recheck(stored)
	if len(rep.Differences) != 1 || rep.Differences[0].Field != "unapplied" || rep.Differences[0].Tally != "tally of group g" {
		t.Errorf("recheck of a changed group tally: %+v", rep.Differences)
	}
}

// endAndReplay ends run 1 and the file of w, and replays it from path.
func endAndReplay(t *testing.T, w *EventWriter, path string) *Results {
	t.Helper()
	w.Emit(KindRunEnd, 1, RunEndEvent{Complete: true})
	w.Emit(KindEnd, 0, EndEvent{Complete: true})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	stored, err := Replay(path)
	if err != nil {
		t.Fatal(err)
	}
	return stored
}
