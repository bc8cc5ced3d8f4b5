package results

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sample returns a small but complete Results with every field set.
func sample() *Results {
	t0 := time.Date(2026, 11, 29, 21, 35, 0, 0, time.UTC)
	ok := Message{ID: "m-001", Acks: "1", Intended: t0, Acked: t0.Add(3 * time.Millisecond), Status: StatusOK, Offset: 0, LeaderEpoch: 0}
	lost := Message{ID: "m-002", Acks: "1", Intended: t0.Add(time.Second), Acked: t0.Add(time.Second + 2*time.Millisecond), Status: StatusOK, Offset: 1, LeaderEpoch: 0}
	topic := Topic{Name: "acks1-r1", Label: "acks1", Messages: []Message{ok, lost}}
	return &Results{
		Schema: SchemaVersion, Complete: true, Title: "Does acks=1 lose acknowledged messages?",
		Runbook: Runbook{Name: "producer-acks", Path: "examples/producer-acks.md", SHA256: strings.Repeat("ab", 32), File: "runbook.md"},
		Provenance: Provenance{Tool: "v0.1.0", Commit: "abc123", Kafka: "4.3.1", Backend: "local", Nodes: 3,
			Broker: map[string]string{"replica.lag.time.max.ms": "3000"}, FranzGo: "v1.22.3",
			Params: map[string]string{"count": "10"}, Host: "h", GoVersion: "go1.26", Start: t0, End: t0.Add(time.Minute), Repeat: 1},
		Runs: []Run{{
			Number: 1, Start: t0, End: t0.Add(time.Minute), Complete: true,
			Topics:       []Topic{topic},
			Tallies:      []Tally{Classify(topic, []Record{{ID: "m-001", Offset: 0}}, map[int32]int64{0: 1}, nil, false)},
			Final:        []Tally{finalTally(Classify(topic, []Record{{ID: "m-001", Offset: 0}, {ID: SentinelPrefix + "r1", Offset: 1}}, map[int32]int64{0: 2}, nil, true))},
			Expectations: []Expectation{{Pos: "r.md:40:1", Expr: "lost(acks1) > 0", Actual: "1", Held: true}},
			Faults:       []Fault{{At: t0.Add(2 * time.Second), Op: "isolate", Nodes: []string{"k2", "k3"}, Pos: "r.md:20:1"}},
			ISR:          []ISRSample{{At: t0, Topic: "acks1", Leader: 1, ISR: []int32{1, 2, 3}, Replicas: []int32{1, 2, 3}}},
			ISRSampling:  &Sampling{Taken: 1, Stored: 1, Gaps: []Gap{}},
			Logs:         []LogLine{{At: t0.Add(5 * time.Second), Node: "k1", Text: "[Partition acks1-r1-0 broker=1] Shrinking ISR from 1,2,3 to 1."}},
			Steps:        []StepOutput{{Pos: "r.md:12:1", Block: 0, Text: "produce acks1 --acks 1", Start: t0, End: t0.Add(time.Second), Output: []string{"  0.0s m-001 ok offset=0"}}},
			Consumers: []Consumer{{
				Group: "g-r1", Label: "g", Topic: "acks1", Commit: "after", Dedup: "table", Store: "consumer-g-r1.sqlite", Pos: "r.md:14:1",
				Settings: map[string]string{"batch": "10"},
				Members:  []Member{{N: 1, PID: 42, Start: t0, End: t0.Add(3 * time.Second), How: MemberCrashed, Reason: "crash consumer at r.md:15:1"}},
				Events: []ConsumerEvent{{At: t0.Add(time.Second), Member: 1, Kind: EventDeliver, Offset: 0, ID: "m-001"},
					{At: t0.Add(2 * time.Second), Member: 1, Kind: EventEffect, Offset: 0, ID: "m-001", Event: "liked-2"}},
				Offsets:        []OffsetSample{{At: t0.Add(2 * time.Second), Committed: 1}},
				OffsetSampling: &Sampling{Taken: 1, Stored: 1, Gaps: []Gap{}},
				Tally: &ConsumerTally{At: t0.Add(time.Minute), Committed: map[int32]int64{0: 1}, End: map[int32]int64{0: 2}, Delivered: 1, Deliveries: 1,
					Redelivered: []string{}, Applied: 1, AppliedTwice: []AppliedEvent{}, Skipped: []string{}, Unapplied: []string{}, Pending: []string{},
					CommittedEarly: []string{}, Likes: map[string]int64{"2": 1}, StoreTotal: 1, Effects: 1, Handled: 1},
			}},
		}},
	}
}

// expanded is r with every ledger as Messages, to compare with evidence
// made as Messages: Load hands a schema 3 ledger out in columns.
func expanded(r *Results) *Results {
	for i := range r.Runs {
		for j, tp := range r.Runs[i].Topics {
			r.Runs[i].Topics[j] = tp.Expanded()
		}
	}
	return r
}

func TestWriteLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	r := sample()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(expanded(got), r) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", got, r)
	}
	// No temporary files left behind.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != FileName {
		t.Errorf("dir holds %v, want only %s", ents, FileName)
	}
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !strings.HasPrefix(string(data), "{\n  \"schema\": 4,") {
		t.Errorf("results.json is not indented or schema is not first:\n%.80s", data)
	}
}

func TestLoadUnknownSchema(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"schema": 5, "runs": []}`, "unsupported schema version 5"},
		{`{"runs": []}`, "no schema version"},
		{`{"schema": 1, `, "unexpected end"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, FileName), []byte(tc.body), 0o644)
		_, err := Load(dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%s) error = %v, want %q", tc.body, err, tc.want)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), []byte(`{"schema": 7}`), 0o644)
	if _, err := Load(dir); !errors.Is(err, ErrSchema) {
		t.Errorf("error %v does not wrap ErrSchema", err)
	}
}

func TestVerdict(t *testing.T) {
	r := sample()
	r.Runs = append(r.Runs, r.Runs[0], r.Runs[0], r.Runs[0])
	r.Runs[1].Expectations = []Expectation{{Expr: "lost(acks1) > 0", Held: false}}
	r.Runs[2].Error = "broker k1 did not start"
	r.Runs[3].Complete = false
	if held, runs := r.Verdict(); held != 1 || runs != 4 {
		t.Errorf("Verdict = %d of %d, want 1 of 4", held, runs)
	}
	if got := r.Labels(); !reflect.DeepEqual(got, []string{"acks1"}) {
		t.Errorf("Labels = %v", got)
	}
	if got := r.LostPerRun("acks1"); !reflect.DeepEqual(got, []int{1, 1, 1, 1}) {
		t.Errorf("LostPerRun = %v", got)
	}
	if got := r.LostPerRun("nope"); !reflect.DeepEqual(got, []int{-1, -1, -1, -1}) {
		t.Errorf("LostPerRun(nope) = %v", got)
	}
	if p := r.Runs[0].Latency("acks1"); p.Count != 2 || p.Max != 3*time.Millisecond {
		t.Errorf("Latency = %+v", p)
	}
}

// A version 1 results.json is upgraded as it is read: statuses renamed, and
// its read classified again, so that a message acknowledged above the high
// watermark it read to is unseen, not lost as version 1 said.
func TestLoadSchema1(t *testing.T) {
	v1 := `{"schema": 1, "complete": true, "title": "old", "runs": [{"number": 1, "complete": true,
	  "topics": [{"name": "a-r1", "label": "a", "messages": [
	    {"id": "m-001", "acks": "1", "status": "ok", "partition": 0, "offset": 0},
	    {"id": "m-002", "acks": "1", "status": "ok", "partition": 0, "offset": 1},
	    {"id": "m-003", "acks": "1", "status": "ok", "partition": 0, "offset": 5},
	    {"id": "m-004", "acks": "all", "status": "timeout", "partition": 0, "offset": -1},
	    {"id": "m-005", "acks": "all", "status": "error", "error": "NOT_ENOUGH_REPLICAS", "partition": 0, "offset": -1}]}],
	  "tallies": [{"topic": "a-r1", "label": "a", "via": "k2", "high_watermarks": {"0": 3}, "read": 2, "acked": 3, "present": 2,
	    "lost": ["m-002", "m-003"], "duplicates": [], "unacked_present": [], "never_acked": [],
	    "seen": {"m-001": [0], "x": [1]}}]}]}`
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), []byte(v1), 0o644)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	run := r.Runs[0]
	if r.Schema != SchemaVersion || run.Topics[0].Messages[3].Status != StatusUnknown || run.Topics[0].Messages[4].Status != StatusFailed {
		t.Errorf("schema %d, statuses %v, %v", r.Schema, run.Topics[0].Messages[3].Status, run.Topics[0].Messages[4].Status)
	}
	tl, _ := run.Tally("a")
	if got := tl.LostIDs(); !reflect.DeepEqual(got, []string{"m-002"}) || tl.Lost[0].Found != "x" {
		t.Errorf("lost %+v, want m-002 with x at its offset", tl.Lost)
	}
	if !reflect.DeepEqual(tl.Unseen, []string{"m-003"}) || tl.Via != "k2" || tl.Failed != 1 || tl.Unknown != 1 {
		t.Errorf("unseen %v via %q failed %d unknown %d", tl.Unseen, tl.Via, tl.Failed, tl.Unknown)
	}
}

func finalTally(t Tally) Tally {
	t.Final = true
	return t
}

// Two runs started in the same second get two directories.
func TestNewRunDir(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "out")
	at := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	for range 3 {
		dir, err := NewRunDir(parent, at)
		if err != nil {
			t.Fatal(err)
		}
		if seen[dir] {
			t.Fatalf("%s handed out twice", dir)
		}
		seen[dir] = true
	}
	if !seen[filepath.Join(parent, "20261130T050000Z")] || !seen[filepath.Join(parent, "20261130T050000Z-3")] {
		t.Errorf("dirs %v", seen)
	}
}
