package results

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestArchiveEvents: a run whose results.json was written and loads gets
// its stream gzipped when the writer closes, and Replay reads the archive
// as it read the plain file; a run that stopped first keeps its plain
// stream, and so does a run whose results.json does not load.
func TestArchiveEvents(t *testing.T) {
	write := func(withResults bool) (string, *Results) {
		dir := t.TempDir()
		w, err := CreateEvents(filepath.Join(dir, EventsFileName))
		if err != nil {
			t.Fatal(err)
		}
		emitAll(t, w, sample(), true)
		r := w.Results()
		if withResults {
			if err := r.Write(dir); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return dir, r
	}
	dir, want := write(true)
	if _, err := os.Stat(filepath.Join(dir, EventsFileName)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("events.jsonl still there after results.json was written: %v", err)
	}
	got, err := Replay(filepath.Join(dir, EventsFileName))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Runs, want.Runs) {
		t.Errorf("the archive replays differently:\n got %+v\nwant %+v", got.Runs, want.Runs)
	}

	crashed, _ := write(false)
	if _, err := os.Stat(filepath.Join(crashed, EventsFileName)); err != nil {
		t.Errorf("a run without results.json lost its plain stream: %v", err)
	}
	if err := os.WriteFile(filepath.Join(crashed, FileName), []byte(`{"schema": 99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ArchiveEvents(crashed); err == nil {
		t.Errorf("archived the stream of a run whose results.json does not load")
	}
	if _, err := os.Stat(filepath.Join(crashed, EventsFileName)); err != nil {
		t.Errorf("the plain stream is gone: %v", err)
	}
}

// TestReencode rewrites a schema 3 run: its timelines become change
// points and its stream is archived.
func TestReencode(t *testing.T) {
	isr, offsets := timelineRuns()
	dir := t.TempDir()
	old := &Results{Schema: 3, Runs: []Run{{Number: 1, ISR: isr[2], Consumers: []Consumer{{Group: "g", Offsets: offsets}}}}}
	if err := os.WriteFile(filepath.Join(dir, EventsFileName), []byte(`{"kind":"start","time":"2026-11-29T21:35:00Z","data":{"schema":3}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	raw, err := json.MarshalIndent(old, "", "  ") // as a schema 3 kafkabook wrote it: every sample
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Reencode(dir); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.Runs[0].ISR); n != 2 || r.Runs[0].ISRSampling.Taken != 20 {
		t.Errorf("re-encoded: %d points, sampling %+v; want 2 points of 20 samples", n, r.Runs[0].ISRSampling)
	}
	if _, err := os.Stat(filepath.Join(dir, ArchivedEventsFileName)); err != nil {
		t.Errorf("stream not archived: %v", err)
	}
}
