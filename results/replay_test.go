package results

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// emitAll writes r as the engine would, event by event.
func emitAll(t *testing.T, w *EventWriter, r *Results, end bool) {
	t.Helper()
	must := func() {
		t.Helper()
		if err := w.Err(); err != nil {
			t.Fatal(err)
		}
	}
	w.Emit(KindStart, 0, StartEvent{Title: r.Title, Runbook: r.Runbook, Provenance: r.Provenance})
	must()
	for _, run := range r.Runs {
		n := run.Number
		w.Emit(KindRunStart, n, RunStartEvent{Start: run.Start})
		must()
		for _, tp := range run.Topics {
			for i, m := range tp.Messages {
				if i == 0 { // first the send, then its result: the result replaces it
					sent := m
					sent.Status, sent.Acked, sent.Offset = StatusUnknown, sent.Acked.AddDate(-1, 0, 0), -1
					w.Emit(KindMessage, n, MessageEvent{Topic: tp.Name, Label: tp.Label, Message: sent})
					must()
				}
				w.Emit(KindMessage, n, &MessageEvent{Topic: tp.Name, Label: tp.Label, Message: m})
				must()
			}
		}
		emitEach(t, w, KindStep, n, run.Steps)
		emitEach(t, w, KindFault, n, run.Faults)
		emitEach(t, w, KindISR, n, run.ISR)
		emitEach(t, w, KindLog, n, run.Logs)
		emitEach(t, w, KindTally, n, run.Tallies)
		emitEach(t, w, KindTally, n, run.Final)
		emitEach(t, w, KindExpect, n, run.Expectations)
		for _, c := range run.Consumers {
			decl := c
			decl.Members, decl.Events, decl.Offsets, decl.Tally = []Member{}, []ConsumerEvent{}, []OffsetSample{}, nil
			w.Emit(KindConsumer, n, decl)
			for _, m := range c.Members {
				started := m
				started.End, started.How, started.Reason = time.Time{}, "", ""
				w.Emit(KindMember, n, MemberEvent{Group: c.Group, Member: started})
				w.Emit(KindConsumerEvents, n, ConsumerEventsEvent{Group: c.Group, Events: c.Events})
				w.Emit(KindMember, n, MemberEvent{Group: c.Group, Member: m}) // its end replaces its start
			}
			w.Emit(KindOffsets, n, OffsetsEvent{Group: c.Group, Samples: c.Offsets})
			w.Emit(KindConsumerTally, n, ConsumerTallyEvent{Group: c.Group, Tally: *c.Tally})
			must()
		}
		w.Emit(KindRunEnd, n, RunEndEvent{End: run.End, Complete: run.Complete, Error: run.Error})
		must()
	}
	if end {
		w.Emit(KindEnd, 0, EndEvent{End: r.Provenance.End, Complete: r.Complete, Error: r.Error})
		must()
	}
}

// emitEach emits each of xs as an event of kind in run n.
func emitEach[T any](t *testing.T, w *EventWriter, kind string, n int, xs []T) {
	t.Helper()
	for _, x := range xs {
		w.Emit(kind, n, x)
		if err := w.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestEventsReplayComplete(t *testing.T) {
	path := filepath.Join(t.TempDir(), EventsFileName)
	w, err := CreateEvents(path)
	if err != nil {
		t.Fatal(err)
	}
	want := sample()
	emitAll(t, w, want, true)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := Replay(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("replay differs:\n got %+v\nwant %+v", got, want)
	}
	if !reflect.DeepEqual(w.Results(), want) {
		t.Errorf("writer's own view differs from the emitted evidence")
	}
}

func TestReplayTruncated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, EventsFileName)
	w, _ := CreateEvents(path)
	emitAll(t, w, sample(), false)
	w.Close()
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")

	// Cut the run_end line mid-way, as a crash during a write would.
	last := lines[len(lines)-1]
	cut := strings.Join(lines[:len(lines)-1], "") + last[:len(last)/2]
	os.WriteFile(path, []byte(cut), 0o644)
	got, err := Replay(path)
	if err != nil {
		t.Fatalf("truncated last line not tolerated: %v", err)
	}
	if got.Complete || got.Runs[0].Complete {
		t.Errorf("replayed crash says complete")
	}
	if !strings.Contains(got.Error, "stopped before its end") {
		t.Errorf("Error = %q", got.Error)
	}
	if n := len(got.Runs[0].Topics[0].Messages); n != 2 {
		t.Errorf("messages = %d, want 2", n)
	}
	if got.Runs[0].End.IsZero() {
		t.Errorf("unfinished run has no End; want the last event's time")
	}
	if got.Title == "" || len(got.Runs[0].Expectations) != 1 {
		t.Errorf("lost evidence before the cut: %+v", got)
	}

	// A bad line in the middle is corruption, not a crash.
	bad := lines[0] + "{not json\n" + strings.Join(lines[1:], "")
	os.WriteFile(path, []byte(bad), 0o644)
	if _, err := Replay(path); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("corrupt middle line: err = %v, want line 2", err)
	}
}

func TestEmitRejects(t *testing.T) {
	w, _ := CreateEvents(filepath.Join(t.TempDir(), EventsFileName))
	defer w.Close()
	if w.Emit("mesage", 1, nil); w.Err() == nil {
		t.Error("unknown kind accepted")
	}
	w2, _ := CreateEvents(filepath.Join(t.TempDir(), EventsFileName))
	if w2.Emit(KindMessage, 0, MessageEvent{}); w2.Close() == nil {
		t.Error("run-scoped event without run accepted")
	}
}

// A write that fails is kept: later events are not written, Err and Close
// report it.
func TestEmitWriteError(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("/dev/full: %v", err)
	}
	w := &EventWriter{f: f, fold: newFolder(), now: time.Now}
	w.Emit(KindStart, 0, StartEvent{Title: "x"})
	if err := w.Err(); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("Err = %v, want no space left", err)
	}
	w.Emit(KindEnd, 0, EndEvent{})
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("Close = %v, want the first error", err)
	}
}

func TestReplayUnknownKindAndSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), EventsFileName)
	os.WriteFile(path, []byte(`{"kind":"start","data":{"schema":1,"title":"x"}}
{"kind":"future","run":1,"data":{}}
{"kind":"end","data":{"complete":true}}
`), 0o644)
	r, err := Replay(path)
	if err != nil || !r.Complete || r.Title != "x" {
		t.Errorf("Replay = %+v, %v", r, err)
	}
	os.WriteFile(path, []byte(`{"kind":"start","data":{"schema":9}}`+"\n"), 0o644)
	if _, err := Replay(path); err == nil || !strings.Contains(err.Error(), "schema version 9") {
		t.Errorf("schema 9: err = %v", err)
	}
}

// Background steps emit from several goroutines at once; every line must
// stay whole.
func TestEmitConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), EventsFileName)
	w, _ := CreateEvents(path)
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 200; i++ {
				w.Emit(KindMessage, 1, MessageEvent{Topic: "t", Label: "t", Message: Message{ID: "m-1", Status: StatusOK}})
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	w.Close()
	r, err := Replay(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.Runs[0].Topics[0].Messages); n != 800 {
		t.Errorf("replayed %d messages, want 800", n)
	}
}
