// Package wire reads the lines a client driver writes (the driver
// protocol, docs/driver-protocol.md): one JSON event a line. It is apart
// from package driver so that its fuzz target builds without the
// clusters the driver's other tests start.
package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Event names of the protocol (docs/driver-protocol.md), after Kafka's
// VerifiableProducer, plus startup_error.
const (
	Startup   = "startup_complete"
	StartErr  = "startup_error"
	Success   = "producer_send_success"
	SendError = "producer_send_error"
	Shutdown  = "shutdown_complete"
	TxnEnd    = "transaction_end"
)

// Event is one line a driver wrote, the fields of every kind together.
type Event struct {
	Name       string `json:"name"`
	N          int64  `json:"n"`
	Partition  int32  `json:"partition"`
	Offset     int64  `json:"offset"`
	IntendedNS int64  `json:"intended_ns"`
	AckNS      int64  `json:"ack_ns"`
	// producer_send_error and startup_error
	Class     string `json:"class"`
	Error     string `json:"error"`
	Exception string `json:"exception"`
	Message   string `json:"message"`
	// shutdown_complete
	Sent     int64  `json:"sent"`
	MaxLagNS int64  `json:"max_lag_ns"`
	Stopped  string `json:"stopped"` // why a transactional producer stopped early (franz-go's driver)
	// transaction_end (Error too)
	Txn        int64  `json:"txn"`
	First      int64  `json:"first"`
	Count      int64  `json:"count"`
	Outcome    string `json:"outcome"`
	OnPurpose  bool   `json:"on_purpose"`
	ProducerID int64  `json:"producer_id"`
	Epoch      int64  `json:"epoch"`
	StartNS    int64  `json:"start_ns"`
	EndNS      int64  `json:"end_ns"`
	// startup_complete
	Client      string             `json:"client"`
	Library     string             `json:"library"`
	Version     string             `json:"version"`
	Librdkafka  string             `json:"librdkafka_version"`
	Runtime     string             `json:"runtime"`
	Config      map[string]*string `json:"config"`
	Unknown     []string           `json:"unknown_properties"`
	ConfigError string             `json:"config_error"`
	SetByUs     []string           `json:"set_by_kafkabook"` // franz-go's driver: the options kafkabook set
}

// SuccessPrefix starts every success line a driver writes, franz-go's
// driver included: the hand parser's cue.
var SuccessPrefix = []byte(`{"name":"producer_send_success",`)

// Decode reads one line. A success line, nearly every line of a run,
// goes through a hand parser about twenty times faster than encoding/json
// (BenchmarkDecodeSuccess); anything else, or a success line the hand
// parser does not take (an escaped string), through encoding/json.
func Decode(line []byte, ev *Event) error {
	if bytes.HasPrefix(line, SuccessPrefix) && decodeSuccess(line[len(SuccessPrefix):], ev) {
		return nil
	}
	*ev = Event{Partition: -1, Offset: -1}
	if err := json.Unmarshal(line, ev); err != nil {
		return fmt.Errorf("driver wrote a line that is not a protocol event: %q: %v", Truncate(line, 200), err)
	}
	return nil
}

// decodeSuccess reads the fields after the name of a producer_send_success
// line when it is in the simple form the drivers write: a flat object on
// one line without spaces, the five numeric fields as integers, other
// keys (topic, key, value) unknown to Event with a string without escapes
// or control characters, an integer, or null. Anything else returns false
// and goes to encoding/json, so the two agree on every line
// (FuzzDecodeAgrees): what the hand parser takes, encoding/json takes
// with the same fields.
func decodeSuccess(b []byte, ev *Event) bool {
	*ev = Event{Name: Success, Partition: -1, Offset: -1}
	i := 0
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		j := bytes.IndexByte(b[i+1:], '"')
		if j < 0 || i+j+3 >= len(b) || b[i+j+2] != ':' {
			return false
		}
		key := b[i+1 : i+1+j]
		if !plainString(key) {
			return false
		}
		field := numericField(key)
		if field == "" && !driverKey(key) && isEventField(key) { // a field of another kind, or a known one in another case
			return false
		}
		i += j + 3
		switch c := b[i]; {
		case c == '"':
			k := bytes.IndexByte(b[i+1:], '"')
			if k < 0 || field != "" || !plainString(b[i+1:i+1+k]) {
				return false
			}
			i += k + 2
		case c == 'n':
			if !bytes.HasPrefix(b[i:], []byte("null")) {
				return false
			}
			i += 4
		default:
			v, k, ok := parseInt(b[i:])
			if !ok {
				return false
			}
			i += k
			switch field {
			case "n":
				ev.N = v
			case "partition":
				if v < math.MinInt32 || v > math.MaxInt32 {
					return false
				}
				ev.Partition = int32(v)
			case "offset":
				ev.Offset = v
			case "intended_ns":
				ev.IntendedNS = v
			case "ack_ns":
				ev.AckNS = v
			}
		}
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return i == len(bytes.TrimRight(b, " \r\n"))-1
		default:
			return false
		}
	}
	return false
}

// plainString says whether s, the inside of a JSON string, holds neither
// an escape nor a control character (which JSON does not allow raw).
func plainString(s []byte) bool {
	for _, c := range s {
		if c == '\\' || c < 0x20 {
			return false
		}
	}
	return true
}

// numericField is key when it is one of the numeric fields a success line
// carries, spelled as the drivers write it; "" otherwise.
func numericField(key []byte) string {
	switch string(key) {
	case "n", "partition", "offset", "intended_ns", "ack_ns":
		return string(key)
	}
	return ""
}

// driverKey says whether key is one of the keys besides the numeric
// fields the drivers write on a success line, none a field of event: the
// common case skips isEventField's lookup.
func driverKey(key []byte) bool {
	switch string(key) {
	case "topic", "key", "value":
		return true
	}
	return false
}

// eventFields are Event's JSON names, lower-cased: encoding/json matches a
// key to a field in any case.
var eventFields = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeFor[Event]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		m[strings.ToLower(name)] = true
	}
	return m
}()

// isEventField says whether encoding/json would decode key into a field
// of Event. Keys of ASCII letters are looked up lower-cased; any other
// key that folds to a field's name (the Kelvin sign for k, the long s for
// s) is treated as a field too.
func isEventField(key []byte) bool {
	for _, c := range key {
		if c >= 0x80 {
			for f := range eventFields {
				if bytes.EqualFold(key, []byte(f)) {
					return true
				}
			}
			return false
		}
	}
	return eventFields[strings.ToLower(string(key))]
}

// parseInt reads a JSON integer at the start of b, in JSON's grammar (no
// leading zero, no plus sign) and within 18 digits.
func parseInt(b []byte) (v int64, n int, ok bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		n++
	}
	start := n
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		v = v*10 + int64(b[n]-'0')
		n++
	}
	if n == start || n-start > 18 || (b[start] == '0' && n-start > 1) {
		return 0, 0, false
	}
	if n < len(b) && (b[n] == '.' || b[n] == 'e' || b[n] == 'E') {
		return 0, 0, false
	}
	if neg {
		v = -v
	}
	return v, n, true
}

// Truncate is b cut to n bytes, for quoting a line in an error.
func Truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
