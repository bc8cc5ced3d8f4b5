package results

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// timelineRuns is two runs' samples as a sampler takes them every 100 ms:
// in run 1 partition 0 loses two replicas from its ISR, gets a new leader
// after a gap of 600 ms without an answer, and partition 1 never changes;
// in run 2 nothing ever changes. Run 1's group commits 0, 0, 5, 5, 9.
func timelineRuns() (isr map[int][]ISRSample, offsets []OffsetSample) {
	t0 := time.Date(2026, 11, 29, 21, 35, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	isr = map[int][]ISRSample{}
	all := []int32{1, 2, 3}
	for ms := 0; ms <= 1500; ms += 100 {
		if ms > 900 && ms < 1500 {
			continue // no answer: a gap
		}
		leader, in := int32(1), all
		switch {
		case ms >= 1500:
			leader, in = 2, []int32{2}
		case ms >= 500:
			in = []int32{1}
		}
		isr[1] = append(isr[1],
			ISRSample{At: at(ms), Topic: "acks1", Partition: 0, Leader: leader, ISR: in, Replicas: all},
			ISRSample{At: at(ms), Topic: "acks1", Partition: 1, Leader: 3, ISR: all, Replicas: all})
	}
	for ms := 0; ms <= 1900; ms += 100 {
		isr[2] = append(isr[2], ISRSample{At: at(ms), Topic: "acks1", Partition: 0, Leader: 1, ISR: all, Replicas: all})
	}
	for i, c := range []int64{0, 0, 5, 5, 9} {
		offsets = append(offsets, OffsetSample{At: at(250 * i), Partition: 0, Committed: c})
	}
	return isr, offsets
}

// TestTimelineChangePoints records the samples as the engine does and
// checks the change points and their sampling against a golden file.
func TestTimelineChangePoints(t *testing.T) {
	isr, offsets := timelineRuns()
	dir := t.TempDir()
	w, err := CreateEvents(filepath.Join(dir, EventsFileName))
	if err != nil {
		t.Fatal(err)
	}
	w.Emit(KindStart, 0, StartEvent{Title: "timelines"})
	for n := 1; n <= 2; n++ {
		w.Emit(KindSampling, n, SamplingEvent{ISREveryMS: 100, OffsetsEveryMS: 250})
		for _, s := range isr[n] {
			w.Emit(KindISR, n, s)
		}
	}
	w.Emit(KindConsumer, 1, Consumer{Group: "g-r1", Label: "g", Members: []Member{}, Events: []ConsumerEvent{}, Offsets: []OffsetSample{}})
	for _, o := range offsets {
		w.Emit(KindOffsets, 1, OffsetsEvent{Group: "g-r1", Samples: []OffsetSample{o}})
	}
	w.Emit(KindEnd, 0, EndEvent{Complete: true})
	got := w.Results()
	if err := got.Write(dir); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // archives the stream: results.json loads
		t.Fatal(err)
	}
	type timelines struct {
		ISR            []ISRSample
		ISRSampling    *Sampling
		Offsets        []OffsetSample `json:",omitempty"`
		OffsetSampling *Sampling      `json:",omitempty"`
	}
	var view []timelines
	for _, run := range got.Runs {
		tl := timelines{ISR: run.ISR, ISRSampling: run.ISRSampling}
		if len(run.Consumers) > 0 {
			tl.Offsets, tl.OffsetSampling = run.Consumers[0].Offsets, run.Consumers[0].OffsetSampling
		}
		view = append(view, tl)
	}
	data, err := json.MarshalIndent(view, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/timeline.golden.json", append(data, '\n'))

	// The writer's view is what a replay of the stream, now archived, and
	// an upgrade of the same samples stored one by one all give.
	replayed, err := Replay(filepath.Join(dir, EventsFileName))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(replayed.Runs, got.Runs) {
		t.Errorf("replay of the archived stream differs from the writer's view")
	}
	for n, run := range got.Runs {
		pts, sm := ISRChanges(isr[n+1], 100*time.Millisecond)
		if !reflect.DeepEqual(pts, run.ISR) || !reflect.DeepEqual(sm, run.ISRSampling) {
			t.Errorf("run %d: ISRChanges differs from the writer's view:\n%+v %+v\n%+v %+v", n+1, pts, sm, run.ISR, run.ISRSampling)
		}
	}
}

// TestLoadSchema3Timelines upgrades a schema 3 file holding every sample:
// the cadence is inferred from the samples.
func TestLoadSchema3Timelines(t *testing.T) {
	isr, offsets := timelineRuns()
	old := Results{Schema: 3, Runs: []Run{{Number: 1, ISR: isr[1],
		Consumers: []Consumer{{Group: "g-r1", Offsets: offsets}}}}}
	data, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Decode("old.json", data)
	if err != nil {
		t.Fatal(err)
	}
	run := r.Runs[0]
	if s := run.ISRSampling; s == nil || s.EveryMS != 100 || s.Taken != 11 || s.Stored != 5 || len(s.Gaps) != 1 {
		t.Errorf("ISR sampling = %+v, want every 100 ms, 11 taken, 5 stored, 1 gap", s)
	}
	if s := run.Consumers[0].OffsetSampling; s == nil || s.EveryMS != 0 || s.Stored != 3 || len(s.Gaps) != 0 {
		t.Errorf("offsets sampling = %+v, want unknown cadence, 3 stored (0, 5 and 9, the last), no gaps", s)
	}
}

// golden compares got with the file at path, or rewrites it under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, got)
	}
}
