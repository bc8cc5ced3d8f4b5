package explain

import (
	"fmt"
	"testing"
)

// TestElections lists the leader elections of published power-loss runs:
// on 4.0.0 every one is clean (the ISR never emptied; a leader's proposal
// to shrink it, which no line shows committed, does not make the next
// election one from outside the ISR); on 4.1.0 the last replica standing
// got its leader back through KIP-966's last-known-leader fallback; on
// 4.3.1 the completion of a reassignment elected the new replica.
func TestElections(t *testing.T) {
	for _, c := range []struct {
		run, topic string
		want       string
	}{
		{"power-loss-4.0.0", "plast", "[{plast-r1-4a3c-0 k1 2 clean}]"},
		{"power-loss-4.0.0", "pall", "[{pall-r1-4a3c-0 k1 2 clean} {pall-r1-4a3c-0 k3 5 clean} {pall-r1-4a3c-0 k1 8 clean}]"},
		{"power-loss-4.1.0", "plast", "[{plast-r1-8d82-0 k1 2 last-known-leader}]"},
		{"power-loss-4.0.0", "pl", "[]"}, // a prefix of the names, no topic
		// A reassignment's completion moves the leadership to the new
		// replica; the ISR samples alone show it outside the ISR.
		{"broker-replacement", "acks1", "[{acks1-r1-bdee-0 k4 1 reassignment}]"},
	} {
		got := fmt.Sprint(Elections(readRun(t, c.run).Runs[0], c.topic))
		if got != c.want {
			t.Errorf("%s %s: got %s, want %s", c.run, c.topic, got, c.want)
		}
	}
}
