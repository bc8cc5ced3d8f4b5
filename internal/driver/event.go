package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Event names of the protocol (docs/driver-protocol.md), after Kafka's
// VerifiableProducer, plus startup_error.
const (
	evStartup  = "startup_complete"
	evStartErr = "startup_error"
	evSuccess  = "producer_send_success"
	evError    = "producer_send_error"
	evShutdown = "shutdown_complete"
	evTxnEnd   = "transaction_end"
)

// event is one line a driver wrote, the fields of every kind together.
type event struct {
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
}

var successPrefix = []byte(`{"name":"producer_send_success",`)

// decodeEvent reads one line. A success line, nearly every line of a run,
// goes through a hand parser about twenty times faster than encoding/json
// (BenchmarkDecodeSuccess); anything else, or a success line the hand
// parser does not take (an escaped string), through encoding/json.
func decodeEvent(line []byte, ev *event) error {
	if bytes.HasPrefix(line, successPrefix) && decodeSuccess(line[len(successPrefix):], ev) {
		return nil
	}
	*ev = event{Partition: -1, Offset: -1}
	if err := json.Unmarshal(line, ev); err != nil {
		return fmt.Errorf("driver wrote a line that is not a protocol event: %q: %v", truncate(line, 200), err)
	}
	return nil
}

// decodeSuccess reads the fields after the name of a producer_send_success
// line: a flat object of numbers, strings without escapes, and null.
func decodeSuccess(b []byte, ev *event) bool {
	*ev = event{Name: evSuccess, Partition: -1, Offset: -1}
	i := 0
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		j := bytes.IndexByte(b[i+1:], '"')
		if j < 0 || i+j+3 > len(b) || b[i+j+2] != ':' {
			return false
		}
		key := b[i+1 : i+1+j]
		i += j + 3
		switch c := b[i]; {
		case c == '"':
			k := bytes.IndexByte(b[i+1:], '"')
			if k < 0 || bytes.IndexByte(b[i+1:i+1+k], '\\') >= 0 {
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
			switch string(key) {
			case "n":
				ev.N = v
			case "partition":
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

// parseInt reads a JSON integer at the start of b.
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
	if n == start || n-start > 18 {
		return 0, 0, false
	}
	if neg {
		v = -v
	}
	return v, n, true
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
