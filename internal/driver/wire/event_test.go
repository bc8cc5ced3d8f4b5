package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

const successLine = `{"name":"producer_send_success","n":1234,"topic":"orders","partition":2,"offset":987654,"key":null,"value":"m-1234","intended_ns":1500000000,"ack_ns":1503456789}`

func TestDecodeSuccess(t *testing.T) {
	var ev Event
	if err := Decode([]byte(successLine), &ev); err != nil {
		t.Fatal(err)
	}
	want := Event{Name: Success, N: 1234, Partition: 2, Offset: 987654, IntendedNS: 1500000000, AckNS: 1503456789}
	if ev.Name != want.Name || ev.N != want.N || ev.Partition != want.Partition || ev.Offset != want.Offset ||
		ev.IntendedNS != want.IntendedNS || ev.AckNS != want.AckNS {
		t.Errorf("decoded %+v, want %+v", ev, want)
	}
}

// TestDecodeAgreesWithJSON checks the hand parser against encoding/json on
// the lines it takes, and that it hands the rest to encoding/json.
func TestDecodeAgreesWithJSON(t *testing.T) {
	for _, line := range []string{
		successLine,
		`{"name":"producer_send_success","n":-1,"topic":"t","partition":0,"offset":-1,"key":"k\"1","value":"m-001","intended_ns":0,"ack_ns":5}`,
		`{"name":"producer_send_success","n":7,"topic":"t","partition":0,"offset":3,"key":"k1","value":"m-007","intended_ns":0,"ack_ns":5}` + "\r",
		`{"name":"producer_send_error","n":3,"topic":"t","partition":-1,"offset":-1,"class":"unknown","error":"REQUEST_TIMED_OUT","exception":"org.apache.kafka.common.errors.TimeoutException","message":"Expiring 1 record(s)","key":null,"value":"m-003","intended_ns":10,"ack_ns":20}`,
		`{"name":"shutdown_complete","sent":100,"max_lag_ns":12345,"end_ns":99}`,
	} {
		var got Event
		if err := Decode([]byte(line), &got); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		want := Event{Partition: -1, Offset: -1}
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatal(err)
		}
		if got.Name != want.Name || got.N != want.N || got.Partition != want.Partition || got.Offset != want.Offset ||
			got.IntendedNS != want.IntendedNS || got.AckNS != want.AckNS || got.Class != want.Class || got.Error != want.Error || got.Sent != want.Sent {
			t.Errorf("%s:\n got %+v\nwant %+v", line, got, want)
		}
	}
	for _, bad := range []string{`{"name":"producer_send_success","n":1`, `not json`, `{"name":"producer_send_success","n":1x}`} {
		var ev Event
		if err := Decode([]byte(bad), &ev); err == nil {
			t.Errorf("%s: decoded without an error", bad)
		}
	}
}

// BenchmarkDecodeSuccess measures the hand parser on a success line;
// BenchmarkDecodeSuccessJSON, encoding/json on the same line.
func BenchmarkDecodeSuccess(b *testing.B) {
	line := []byte(successLine)
	var ev Event
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(line, &ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeSuccessJSON(b *testing.B) {
	line := []byte(successLine)
	b.ReportAllocs()
	for b.Loop() {
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDecodeAgrees: on any line, the hand parser of success lines and
// encoding/json agree: a line the hand parser takes decodes to the same
// event with encoding/json, and one encoding/json refuses, the hand
// parser refuses too.
func FuzzDecodeAgrees(f *testing.F) {
	for _, line := range []string{
		successLine,
		`{"name":"producer_send_success","n":1,"partition":4294967296,"offset":0,"intended_ns":0,"ack_ns":1}`,
		`{"name":"producer_send_success","n":01,"partition":0}`,
		`{"name":"producer_send_success","N":5,"n":1}`,
		`{"name":"producer_send_success","n":"5"}`,
		`{"name":"producer_send_success","n":1,"topic":"a` + "\x01" + `b"}`,
		`{"name":"producer_send_success","n":1,"class":"failed"}`,
		`{"name":"producer_send_success","n":1,"offset":1e3}`,
		`{"name":"producer_send_success","n":1,"\u006e":2}`,
	} {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		want := Event{Partition: -1, Offset: -1}
		jerr := json.Unmarshal(line, &want)
		if !bytes.HasPrefix(line, SuccessPrefix) {
			return
		}
		var got Event
		if !decodeSuccess(line[len(SuccessPrefix):], &got) {
			return // encoding/json decides
		}
		if jerr != nil {
			t.Fatalf("the hand parser took %q, which encoding/json refuses: %v", line, jerr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n hand %+v\n json %+v", line, got, want)
		}
	})
}
