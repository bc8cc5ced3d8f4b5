package results

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// hostileLedger is a ledger whose count asks for more entries than any
// file can hold, with columns that agree with it: before the counts were
// checked, decoding it panicked in makeslice (1e15) or took 8 GB (2e8).
func hostileLedger(count string) string { return hostileLedgerKey("count", count) }

// hostileLedgerKey is hostileLedger with the count's key spelled as key:
// encoding/json matches "Count" and "\u0063ount" to the field too.
func hostileLedgerKey(key, count string) string {
	col := `"0*` + count + `"`
	return `{"` + key + `":` + count + `,"num":` + col + `,"intended":` + col + `,"acked":` + col + `,"status":` + col +
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
	f.Add(manyLedgers(`\u0063ount`, 3))
	f.Add(manyLedgers("COUNT", 3))
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

// manyLedgers is a results.json of n topics, each a ledger of the most
// entries a small ledger may claim on its own (ledgerBudget), its count
// keyed as key: a few KB that would ask for n × 41 MB.
func manyLedgers(key string, n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"schema":4,"runs":[{"topics":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"t%d","label":"t%d","ledger":%s}`, i, i, hostileLedgerKey(key, strconv.Itoa(minLedgerBudget)))
	}
	b.WriteString(`]}]}`)
	return b.Bytes()
}

// TestCountKeySpellings: a count keyed in another case or with escapes
// is held to the file's budget like "count": forty ledgers of a million
// entries each, in 4 KB, are refused before any is decoded, from
// results.json and from events.jsonl, plain or gzipped.
func TestCountKeySpellings(t *testing.T) {
	for _, key := range []string{"count", "Count", "COUNT", `\u0063ount`, `c\u006Funt`} {
		data := manyLedgers(key, 40)
		if _, err := Decode("spelled.json", data); err == nil || !strings.Contains(err.Error(), "ledger field count at byte") {
			t.Errorf("key %s, results.json: error %v, want the budget's refusal", key, err)
		}
		var stream bytes.Buffer
		for i := range 40 {
			fmt.Fprintf(&stream, `{"kind":"messages","run":1,"time":"2026-11-29T21:35:00Z","data":{"topic":"a%d","label":"a%d","ledger":%s}}`+"\n",
				i, i, hostileLedgerKey(key, strconv.Itoa(minLedgerBudget)))
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(stream.Bytes())
		zw.Close()
		for name, in := range map[string][]byte{"plain": stream.Bytes(), "gzipped": gz.Bytes()} {
			if _, err := ReplayFrom(bytes.NewReader(in)); err == nil || !strings.Contains(err.Error(), "ledger field count") {
				t.Errorf("key %s, events.jsonl %s (%d bytes): error %v, want the budget's refusal", key, name, len(in), err)
			}
		}
	}
	// A key that only looks alike is not a count: "counts", "co unt".
	if used, err := checkCounts([]byte(`{"counts":5,"co unt":7,"x":"count","count":2}`), 0, 10); err != nil || used != 2 {
		t.Errorf("checkCounts: %d, %v; want 2 (only the real count key)", used, err)
	}
}

// BenchmarkHostileDecode measures the worst cost of a small hostile
// file: one ledger claiming the most entries a file under 1 MiB may hold
// (ledgerBudget), with its columns agreeing, decoded from results.json
// and replayed from events.jsonl. Its B/op, over the input's size, is the
// figure docs/results-schema.md gives per KB.
func BenchmarkHostileDecode(b *testing.B) {
	file := manyLedgers("Count", 1)
	line := []byte(`{"kind":"messages","run":1,"time":"2026-11-29T21:35:00Z","data":{"topic":"a","label":"a","ledger":` +
		hostileLedgerKey("Count", strconv.Itoa(minLedgerBudget)) + "}}\n")
	b.Run("results.json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode("worst.json", file); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(file)), "input-bytes")
	})
	b.Run("events.jsonl", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ReplayFrom(bytes.NewReader(line)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(line)), "input-bytes")
	})
}

// TestNegativeNumbers: a count, offset, partition or node below what
// kafkabook writes (-1 says "none"; counts have no "none") is refused
// with where it is, from results.json and from the event stream.
func TestNegativeNumbers(t *testing.T) {
	for _, c := range []struct{ run, want string }{
		{`"isr":[{"at":"2026-11-29T21:35:00Z","topic":"a","partition":0,"leader":-7,"isr":[1],"replicas":[1]}]`, "runs[0].isr[0].leader is -7, want -1 or more"},
		{`"isr":[{"at":"2026-11-29T21:35:00Z","topic":"a","partition":0,"leader":1,"isr":[1],"replicas":[1,-2]}]`, "runs[0].isr[0].replicas[1] is -2"},
		{`"tallies":[{"topic":"t","read":-1,"high_watermarks":{"0":1}}]`, "runs[0].tallies[0].read is -1, want 0 or more"},
		{`"tallies":[{"topic":"t","high_watermarks":{"0":-5}}]`, "runs[0].tallies[0].high_watermarks[0] is -5, want 0 or more"},
		{`"tallies":[{"topic":"t","high_watermarks":{"-3":5}}]`, "runs[0].tallies[0].high_watermarks: a key is -3"},
		{`"consumers":[{"group":"g","offsets":[{"partition":0,"committed":-9}]}]`, "runs[0].consumers[0].offsets[0].committed is -9"},
		{`"topics":[{"name":"t","label":"t","ledger":{"count":1,"num":"1","intended":"0","acked":"0","status":"0","acks":"0","idempotent":"0","partition":"-4","offset":"0","leader_epoch":"0","error":"0"}}]`, "ledger entry 0: partition -4"},
		{`"topics":[{"name":"t","label":"t","ledger":{"count":1,"num":"1","intended":"0","acked":"0","status":"0","acks":"0","idempotent":"0","partition":"0","offset":"-2","leader_epoch":"0","error":"0"}}]`, "ledger entry 0: offset -2"},
	} {
		_, err := Decode("neg.json", []byte(`{"schema":4,"runs":[{`+c.run+`}]}`))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.run, err, c.want)
		}
	}
	stream := `{"kind":"isr","run":1,"time":"2026-11-29T21:35:00Z","data":{"at":"2026-11-29T21:35:00Z","topic":"a","partition":-3,"leader":1,"isr":[1],"replicas":[1]}}` + "\n"
	if _, err := ReplayFrom(strings.NewReader(stream)); err == nil || !strings.Contains(err.Error(), "isr[0].partition is -3") {
		t.Errorf("replay: error %v, want the partition named", err)
	}
}
