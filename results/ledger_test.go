package results

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// randomLedger makes n entries as a troubled run would: several
// partitions, every status, errors, acks=0 sends without offsets, unknown
// sends without an answer, and now and then an id of another spelling.
func randomLedger(rng *rand.Rand, n int) []Message {
	t0 := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	next := map[int32]int64{}
	msgs := make([]Message, n)
	for i := range msgs {
		p := int32(rng.IntN(3))
		m := Message{
			ID: MessageID(int64(i + 1)), Acks: []string{"0", "1", "all"}[rng.IntN(3)], Idempotent: rng.IntN(5) == 0,
			Intended: t0.Add(time.Duration(i) * 2 * time.Millisecond), Status: StatusOK, Partition: p, Offset: -1, LeaderEpoch: int32(rng.IntN(3)),
		}
		m.Acked = m.Intended.Add(time.Duration(rng.IntN(5e6)))
		switch r := rng.IntN(20); {
		case r == 0:
			m.Status, m.Error = StatusFailed, "NOT_ENOUGH_REPLICAS: broker says no"
		case r == 1:
			m.Status, m.Error, m.Acked = StatusUnknown, "", time.Time{}
		case r == 2:
			m.Status, m.Error = StatusUnknown, fmt.Sprintf("context deadline exceeded #%d", rng.IntN(3))
		case r == 3 && m.Acks == "0":
			// ok without an offset
		default:
			m.Offset = next[p]
			next[p] += int64(1 + rng.IntN(2))
		}
		if rng.IntN(50) == 0 {
			m.ID = fmt.Sprintf("x-%d", i) // another spelling, kept as is
		}
		msgs[i] = m
	}
	return msgs
}

func TestLedgerRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	msgs := randomLedger(rng, 5000)
	var l Ledger
	for _, m := range msgs {
		l.AddMessage(m)
	}
	data, err := json.Marshal(&l)
	if err != nil {
		t.Fatal(err)
	}
	var back Ledger
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Len() != len(msgs) {
		t.Fatalf("%d entries back, want %d", back.Len(), len(msgs))
	}
	for i, m := range msgs {
		if got := back.Message(i); !reflect.DeepEqual(got, m) {
			t.Fatalf("entry %d:\n got %+v\nwant %+v", i, got, m)
		}
	}
	t.Logf("%d entries: %d bytes, %.1f a message", len(msgs), len(data), float64(len(data))/float64(len(msgs)))
}

// A steady producer's ledger is about ten bytes a message in results.json.
func TestLedgerSize(t *testing.T) {
	l := steadyLedger(100_000, 3)
	data, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	per := float64(len(data)) / float64(l.Len())
	t.Logf("steady ledger: %.1f bytes a message", per)
	if per > 25 {
		t.Errorf("%.1f bytes a message, want at most 25", per)
	}
}

// steadyLedger is what a producer at 500/s with keys over parts
// partitions records on a healthy cluster.
func steadyLedger(n, parts int) *Ledger {
	rng := rand.New(rand.NewPCG(3, 4))
	t0 := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	next := make([]int64, parts)
	l := &Ledger{}
	l.Grow(n)
	for i := 0; i < n; i++ {
		p := int32(i % parts)
		in := t0.Add(time.Duration(i) * 2 * time.Millisecond)
		l.Add(int64(i+1), AcksAll, false, in, in.Add(time.Duration(800_000+rng.IntN(3_000_000))), StatusOK, "", p, next[p], 0)
		next[p]++
	}
	return l
}

func TestLedgerDecodeErrors(t *testing.T) {
	for _, bad := range []string{
		`{"count": 2, "num": "1"}`,
		`{"count": 1, "num": "1*2"}`,
		`{"count": 1, "num": "x"}`,
		`{"count": 1, "num": "1", "intended": "0", "acked": "0", "status": "3", "acks": "0", "idempotent": "0", "partition": "0", "offset": "0", "leader_epoch": "0", "error": "0"}`,
		`{"count": 1, "num": "1", "intended": "0", "acked": "0", "status": "0", "acks": "0", "idempotent": "0", "partition": "0", "offset": "0", "leader_epoch": "0", "error": "2", "errors": ["a"]}`,
	} {
		var l Ledger
		if err := json.Unmarshal([]byte(bad), &l); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// classifyReference is Classify as schema 2 defined it, on Message values
// and maps of strings: the meaning ClassifyRead must keep.
func classifyReference(t Topic, records []Record, hw map[int32]int64, earlier map[At]string, final bool) Tally {
	found := map[string][]int64{}
	for _, r := range records {
		found[r.ID] = append(found[r.ID], r.Offset)
	}
	at := make(map[At]string, len(records))
	for _, r := range records {
		at[At{r.Partition, r.Offset}] = r.ID
	}
	tl := Tally{
		Topic: t.Name, Label: t.Label, HighWatermarks: copyHW(hw), Read: len(records),
		Lost: []Loss{}, Unseen: []string{}, Duplicates: []Duplicate{}, Inconsistent: []Inconsistency{},
		UnknownPresent: []string{}, FailedPresent: []string{},
	}
	ledger := map[string]bool{}
	for _, m := range t.All() {
		ledger[m.ID] = true
		_, ok := found[m.ID]
		switch m.Status {
		case StatusFailed:
			tl.Failed++
			if ok {
				tl.FailedPresent = append(tl.FailedPresent, m.ID)
			}
		case StatusUnknown:
			tl.Unknown++
			if ok {
				tl.UnknownPresent = append(tl.UnknownPresent, m.ID)
			}
		case StatusOK:
			tl.Acked++
			high := hw[m.Partition]
			switch {
			case ok:
				tl.Present++
			case m.Offset < 0 && !final, m.Offset >= high:
				tl.Unseen = append(tl.Unseen, m.ID)
			default:
				tl.Lost = append(tl.Lost, Loss{ID: m.ID, Partition: m.Partition, Offset: m.Offset,
					HighWatermark: high, Found: at[At{m.Partition, m.Offset}]})
			}
		}
	}
	for id, offs := range found {
		if len(offs) > 1 && !IsSentinel(id) {
			slices.Sort(offs)
			tl.Duplicates = append(tl.Duplicates, Duplicate{ID: id, Offsets: offs})
		}
		if !ledger[id] && !IsSentinel(id) {
			tl.Foreign++
		}
	}
	for pos, id := range at {
		if was, ok := earlier[pos]; ok && was != id {
			tl.Inconsistent = append(tl.Inconsistent, Inconsistency{Partition: pos.Partition, Offset: pos.Offset, IDs: []string{was, id}})
		}
	}
	SortIDs(tl.Unseen)
	SortIDs(tl.UnknownPresent)
	SortIDs(tl.FailedPresent)
	slices.SortFunc(tl.Lost, func(a, b Loss) int { return cmpID(a.ID, b.ID) })
	slices.SortFunc(tl.Duplicates, func(a, b Duplicate) int { return cmpID(a.ID, b.ID) })
	slices.SortFunc(tl.Inconsistent, func(a, b Inconsistency) int {
		if a.Partition != b.Partition {
			return int(a.Partition - b.Partition)
		}
		return int(a.Offset - b.Offset)
	})
	return tl
}

// randomRead is what a read of a troubled topic could find: most
// acknowledged messages where they were acknowledged, some missing with
// another record or nothing at their offset, duplicates, foreign records,
// sentinels, failed and unknown sends present anyway.
func randomRead(rng *rand.Rand, msgs []Message) ([]Record, map[int32]int64) {
	var recs []Record
	hw := map[int32]int64{}
	taken := map[At]bool{}
	place := func(id string, p int32, off int64) {
		if off < 0 || taken[At{p, off}] {
			return
		}
		taken[At{p, off}] = true
		recs = append(recs, Record{ID: id, Partition: p, Offset: off})
		hw[p] = max(hw[p], off+1)
	}
	for _, m := range msgs {
		switch r := rng.IntN(30); {
		case m.Status == StatusOK && r < 24:
			place(m.ID, m.Partition, m.Offset)
		case m.Status == StatusOK && r == 24:
			place(fmt.Sprintf("y-%d", rng.IntN(5)), m.Partition, m.Offset) // overwritten
		case m.Status == StatusOK && r == 25:
			place(m.ID, m.Partition, m.Offset)
			place(m.ID, m.Partition, m.Offset+1000) // duplicate
		case m.Status != StatusOK && r < 10:
			place(m.ID, m.Partition, 5000+int64(rng.IntN(1000)))
		}
	}
	for p := int32(0); p < 3; p++ {
		for range 3 {
			place(SentinelPrefix+"r1", p, hw[p])
		}
		hw[p] += int64(rng.IntN(3)) - 1 // sometimes short of the last record: unseen
	}
	rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	return recs, hw
}

// ClassifyRead, on either form of the ledger, finds exactly what the
// schema 2 classification found.
func TestClassifyMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 40 {
		msgs := randomLedger(rng, 50+rng.IntN(400))
		recs, hw := randomRead(rng, msgs)
		earlier := map[At]string{}
		for _, r := range recs {
			if rng.IntN(10) == 0 {
				earlier[At{r.Partition, r.Offset}] = fmt.Sprintf("m-%03d", rng.IntN(100))
			} else if rng.IntN(2) == 0 {
				earlier[At{r.Partition, r.Offset}] = r.ID
			}
		}
		final := trial%2 == 0
		asMessages := Topic{Name: "t-r1", Label: "t", Messages: msgs}
		var l Ledger
		for _, m := range msgs {
			l.AddMessage(m)
		}
		asLedger := Topic{Name: "t-r1", Label: "t", Ledger: &l}
		want := classifyReference(asMessages, recs, hw, earlier, final)
		for name, tp := range map[string]Topic{"messages": asMessages, "ledger": asLedger} {
			got := Classify(tp, recs, hw, earlier, final)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d, %s: Classify differs from the reference:\n got %+v\nwant %+v", trial, name, got, want)
			}
		}
		if o := want.Outcomes(); o.Present+o.Lost+o.Unseen+o.Failed+o.Unknown != len(msgs) {
			t.Fatalf("outcomes %+v do not add up to %d", o, len(msgs))
		}
	}
}

// Seen keeps the first id seen at an offset, as Remember does.
func TestSeenRemember(t *testing.T) {
	var s Seen
	s.Remember(RecordsOf([]Record{{ID: "m-001", Partition: 0, Offset: 5}, {ID: "sentinel-r1", Partition: 1, Offset: 0}}))
	s.Remember(RecordsOf([]Record{{ID: "m-002", Partition: 0, Offset: 5}, {ID: "m-003", Partition: 0, Offset: 2}}))
	for _, c := range []struct {
		p    int32
		off  int64
		want string
	}{{0, 5, "m-001"}, {0, 2, "m-003"}, {1, 0, "sentinel-r1"}, {0, 3, ""}, {2, 0, ""}} {
		if got, _ := s.at(c.p, c.off); got != c.want {
			t.Errorf("at(%d, %d) = %q, want %q", c.p, c.off, got, c.want)
		}
	}
}

// A schema 2 results.json (a list of messages per topic) loads as schema 3
// and is written back with its ledger in columns.
func TestLoadSchema2(t *testing.T) {
	want := sample()
	v2, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	// Make it a schema 2 file: the ledger as a list of messages.
	var raw map[string]any
	json.Unmarshal(v2, &raw)
	raw["schema"] = 2
	for _, run := range raw["runs"].([]any) {
		for _, tp := range run.(map[string]any)["topics"].([]any) {
			m := tp.(map[string]any)
			delete(m, "ledger")
			var msgs []any
			b, _ := json.Marshal(want.Runs[0].Topics[0].Messages)
			json.Unmarshal(b, &msgs)
			m["messages"] = msgs
		}
	}
	v2, _ = json.Marshal(raw)
	if strings.Contains(string(v2), `"ledger"`) || !strings.Contains(string(v2), `"messages":[{`) {
		t.Fatalf("not a schema 2 file: %.300s", v2)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), v2, 0o644)
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("schema 2 file loads as\n%+v\nwant\n%+v", got, want)
	}
	if err := got.Write(dir); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !strings.Contains(string(data), `"ledger": {`) || strings.Contains(string(data), `"messages"`) {
		t.Errorf("written back without its ledger in columns:\n%s", data)
	}
	again, err := Load(dir)
	if err != nil || !reflect.DeepEqual(expanded(again), want) {
		t.Errorf("written back and loaded again: %v\n%+v", err, again)
	}
}

// Load hands a schema 3 ledger out in columns, at any size, and every
// measure reads it there.
func TestLoadLargeStaysCompact(t *testing.T) {
	r := sample()
	l := steadyLedger(100_001, 1)
	r.Runs[0].Topics[0] = Topic{Name: "acks1-r1", Label: "acks1", Ledger: l}
	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tp := got.Runs[0].Topics[0]
	if len(tp.Messages) > 0 || tp.Ledger.Len() != 100_001 {
		t.Fatalf("messages %d, ledger %d; want the ledger in columns", len(tp.Messages), tp.Ledger.Len())
	}
	if p := got.Runs[0].Latency("acks1"); p.Count != 100_001 || p.Max < 800*time.Microsecond {
		t.Errorf("latency %+v", p)
	}
	if n := got.Runs[0].Count("acks1", StatusOK); n != 100_001 {
		t.Errorf("acked %d", n)
	}
	if hw := tp.HighestAcked(); hw[0] != 100_000 {
		t.Errorf("highest acked %v", hw)
	}
}

// The engine's events: ledger entries in batches, replayed into one
// ledger; a crash loses no more than the batch being written.
func TestReplayMessageBatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), EventsFileName)
	w, err := CreateEvents(path)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	msgs := randomLedger(rng, 3000)
	w.Emit(KindStart, 0, StartEvent{Title: "batches"})
	w.Emit(KindRunStart, 1, RunStartEvent{Start: msgs[0].Intended})
	w.Emit(KindTopic, 1, Topic{Name: "t-r1", Label: "t"})
	w.Reserve(1, "t-r1", "t", len(msgs))
	for i := 0; i < len(msgs); i += 500 {
		var b Ledger
		for _, m := range msgs[i:min(i+500, len(msgs))] {
			b.AddMessage(m)
		}
		w.Emit(KindMessages, 1, MessagesEvent{Topic: "t-r1", Label: "t", Ledger: &b})
	}
	if snap := w.Ledger(1, "t-r1"); snap.Len() != len(msgs) {
		t.Errorf("writer's ledger has %d entries, want %d", snap.Len(), len(msgs))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if lines := strings.Count(string(data), "\n"); lines != 3+6 {
		t.Errorf("%d lines for 3000 messages, want 9", lines)
	}
	got, err := Replay(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Runs[0].Topics[0].Expanded().Messages, msgs) {
		t.Errorf("replayed ledger differs")
	}
	// Cut the last batch mid-way: the other five stay.
	cut := data[:len(data)-200]
	os.WriteFile(path, cut, 0o644)
	got, err = Replay(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := got.Runs[0].Topics[0].Len(); n != 2500 || got.Complete {
		t.Errorf("after a crash: %d entries, complete %v; want 2500, false", n, got.Complete)
	}
}

func BenchmarkLedgerEncode1M(b *testing.B) {
	l := steadyLedger(1_000_000, 3)
	b.ResetTimer()
	var size int
	for range b.N {
		data, err := json.Marshal(l)
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.ReportMetric(float64(size)/1e6, "bytes/msg")
}

func BenchmarkLedgerDecode1M(b *testing.B) {
	data, _ := json.Marshal(steadyLedger(1_000_000, 3))
	b.ResetTimer()
	for range b.N {
		var l Ledger
		if err := json.Unmarshal(data, &l); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLedgerAdd is the produce path's cost per result.
func BenchmarkLedgerAdd(b *testing.B) {
	t0 := time.Now()
	var l Ledger
	for i := range b.N {
		l.Add(int64(i), AcksAll, false, t0, t0, StatusOK, "", 0, int64(i), 0)
	}
}

// BenchmarkClassify1M is a final read of a million messages, all present,
// against their ledger, remembered for the next read.
func BenchmarkClassify1M(b *testing.B) {
	const n = 1_000_000
	l := steadyLedger(n, 3)
	rd := &Records{}
	var buf []byte
	for i := 0; i < n; i++ {
		buf = AppendMessageID(buf[:0], l.num[i])
		rd.Add(buf, l.partition[i], l.offset[i])
	}
	hw := map[int32]int64{0: n / 3, 1: n / 3, 2: n / 3}
	tp := Topic{Name: "t", Label: "t", Ledger: l}
	b.ResetTimer()
	for range b.N {
		var seen Seen
		tl := ClassifyRead(tp, rd, hw, &seen, true)
		seen.Remember(rd)
		if tl.Present != n {
			b.Fatalf("present %d", tl.Present)
		}
	}
}

func BenchmarkLatency1M(b *testing.B) {
	tp := Topic{Name: "t", Label: "t", Ledger: steadyLedger(1_000_000, 3)}
	run := Run{Topics: []Topic{tp}}
	b.ResetTimer()
	for range b.N {
		if p := run.Latency("t"); p.Count != 1_000_000 {
			b.Fatal(p)
		}
	}
}

func TestCountAcked(t *testing.T) {
	var l Ledger
	t0 := time.Now()
	for i := int64(1); i <= 5; i++ {
		st := StatusOK
		if i == 4 {
			st = StatusUnknown
		}
		l.Add(i, AcksLeader, false, t0, t0, st, "", 0, i, 0)
	}
	run := Run{Topics: []Topic{{Label: "a", Ledger: &l}, {Label: "a", Messages: []Message{{ID: "x-1", Status: StatusOK}}}, {Label: "b", Messages: []Message{{ID: "m-002", Status: StatusOK}}}}}
	if n := run.CountAcked("a", []string{"m-002", "m-004", "x-1", "m-009"}); n != 2 {
		t.Errorf("CountAcked = %d, want 2 (m-002 and x-1)", n)
	}
}

func TestSeries(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	var l Ledger
	// 10 messages a second for 4 s; those meant for the second second wait
	// until 2.5 s.
	for i := 0; i < 40; i++ {
		in := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		ack := in.Add(time.Millisecond)
		if in.Sub(t0) >= time.Second && in.Sub(t0) < 2*time.Second {
			ack = t0.Add(2500 * time.Millisecond)
		}
		l.Add(int64(i+1), AcksAll, false, in, ack, StatusOK, "", 0, int64(i), 0)
	}
	s := Topic{Ledger: &l}.Series(t0, t0.Add(4*time.Second), time.Second)
	if len(s) != 4 {
		t.Fatalf("%d buckets", len(s))
	}
	if s[1].Acked != 0 || s[2].Acked != 20 || s[0].Acked != 10 || s[1].Sent != 10 {
		t.Errorf("acked per second %d %d %d %d, sent in the second %d", s[0].Acked, s[1].Acked, s[2].Acked, s[3].Acked, s[1].Sent)
	}
	if s[1].MaxLatency != 1500*time.Millisecond || s[1].MinLatency != 600*time.Millisecond || s[0].MaxLatency != time.Millisecond {
		t.Errorf("latency of the stalled second: %s..%s; first %s", s[1].MinLatency, s[1].MaxLatency, s[0].MaxLatency)
	}
}

func BenchmarkSeries1M(b *testing.B) {
	l := steadyLedger(1_000_000, 3)
	tp := Topic{Ledger: l}
	start := l.Intended(0)
	for range b.N {
		tp.Series(start, start.Add(2000*time.Second), 2*time.Second)
	}
}
