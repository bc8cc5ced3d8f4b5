package results

import (
	"bytes"
	"encoding/json"
	"testing"
)

// hostileLedger is a ledger whose count asks for more entries than any
// file can hold, with columns that agree with it: before the counts were
// checked, decoding it panicked in makeslice (1e15) or took 8 GB (2e8).
func hostileLedger(count string) string {
	col := `"0*` + count + `"`
	return `{"count":` + count + `,"num":` + col + `,"intended":` + col + `,"acked":` + col + `,"status":` + col +
		`,"acks":` + col + `,"idempotent":` + col + `,"partition":` + col + `,"offset":` + col + `,"leader_epoch":` + col +
		`,"error":` + col + `,"errors":[]}`
}

// FuzzDecode: Decode of any bytes returns evidence or an error, never
// panics, and never allocates for counts the data does not bear out.
func FuzzDecode(f *testing.F) {
	good, err := json.Marshal(sample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	for _, c := range []string{"1000000000000000", "1e15", "200000000", "-1", "3"} {
		f.Add([]byte(`{"schema":3,"runs":[{"topics":[{"name":"t","label":"t","ledger":` + hostileLedger(c) + `}]}]}`))
	}
	f.Add([]byte(`{"schema":1,"runs":[{"topics":[{"name":"t","messages":[{"id":"m-001","status":"ok","offset":0}]}],` +
		`"tallies":[{"topic":"t","high_watermarks":{"0":1},"seen":{"m-001":[0,1000000000000000]}}]}]}`))
	f.Add([]byte(`{"schema":4,"runs":[{"isr":[{"at":"2026-11-29T21:35:00Z","topic":"a","leader":1}],"consumers":[{"group":"g","offsets":[{"partition":0,"committed":1}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode("fuzz.json", data)
		if err == nil && r.Schema != SchemaVersion {
			t.Errorf("decoded schema %d, want %d", r.Schema, SchemaVersion)
		}
	})
}

// FuzzReplay: ReplayFrom of any stream returns evidence or an error,
// never panics.
func FuzzReplay(f *testing.F) {
	var stream bytes.Buffer
	for _, line := range []string{
		`{"kind":"start","time":"2026-11-29T21:35:00Z","data":{"schema":4,"title":"t"}}`,
		`{"kind":"sampling","run":1,"time":"2026-11-29T21:35:00Z","data":{"isr_every_ms":100,"offsets_every_ms":250}}`,
		`{"kind":"isr","run":1,"time":"2026-11-29T21:35:00Z","data":{"at":"2026-11-29T21:35:00Z","topic":"a","partition":0,"leader":1,"isr":[1],"replicas":[1]}}`,
		`{"kind":"messages","run":1,"time":"2026-11-29T21:35:00Z","data":{"topic":"a-r1","label":"a","ledger":` + hostileLedger("3") + `}}`,
		`{"kind":"end","time":"2026-11-29T21:35:01Z","data":{"complete":true}}`,
	} {
		stream.WriteString(line + "\n")
	}
	f.Add(stream.Bytes())
	for _, c := range []string{"1000000000000000", "200000000"} {
		f.Add([]byte(`{"kind":"messages","run":1,"time":"2026-11-29T21:35:00Z","data":{"topic":"a","label":"a","ledger":` + hostileLedger(c) + "}}\n"))
		f.Add([]byte(`{"kind":"topic","run":1,"time":"2026-11-29T21:35:00Z","data":{"name":"a","label":"a","ledger":` + hostileLedger(c) + "}}\n"))
	}
	f.Add([]byte(`{"kind":"start","time":"2026-11-29T21:35:00Z","data":{"schema":1}}` + "\n" +
		`{"kind":"topic","run":1,"time":"2026-11-29T21:35:00Z","data":{"name":"t","messages":[{"id":"m-001","status":"ok","offset":0}]}}` + "\n" +
		`{"kind":"tally","run":1,"time":"2026-11-29T21:35:00Z","data":{"topic":"t","high_watermarks":{"0":1},"seen":{"m-001":[0,1000000000000000]}}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ReplayFrom(bytes.NewReader(data)); err != nil {
			return
		}
	})
}

// TestHostileCounts: the inputs that crashed kafkabook are refused with
// the field and what was wrong.
func TestHostileCounts(t *testing.T) {
	for _, c := range []string{"1000000000000000", "200000000"} {
		data := []byte(`{"schema":3,"runs":[{"topics":[{"name":"t","label":"t","ledger":` + hostileLedger(c) + `}]}]}`)
		_, err := Decode("hostile.json", data)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte("hostile.json: ledger field count at byte")) {
			t.Errorf("count %s: error %v, want the file, the field and its place", c, err)
		}
		line := `{"kind":"messages","run":1,"time":"2026-11-29T21:35:00Z","data":{"topic":"a","label":"a","ledger":` + hostileLedger(c) + "}}\n"
		if _, err := ReplayFrom(bytes.NewReader([]byte(line))); err == nil || !bytes.Contains([]byte(err.Error()), []byte("line 1: ledger field count")) {
			t.Errorf("replay of count %s: error %v, want the line and the field", c, err)
		}
	}
}
