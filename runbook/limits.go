package runbook

import (
	"strconv"
	"strings"
	"time"
)

// The limits of what a step may ask for. kafkabook keeps a run's ledger
// in memory and schedules every message, so a number beyond these is a
// run that cannot finish (or a typo); check refuses it, naming the limit.
const (
	maxInt      = 10_000_000     // any whole-number flag: counts, keys, batches
	maxSize     = 1_000_000      // --size: bytes of one message's value
	maxRate     = 10_000_000     // --rate: messages a second
	maxDuration = 24 * time.Hour // any duration: timeouts, --for, sleep

	maxDurationText = "24h" // maxDuration as a runbook writes it
)

// limitText writes a limit for people: 10,000,000.
func limitText(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// parseRate parses a rate such as "2000/s" or "0.5/s" into messages per
// second. Only decimal digits with at most one point are numbers here: NaN,
// Inf, exponents and hex floats, which strconv would take, are refused, as
// are 0/s and rates beyond maxRate. msg says what a rate must be.
func parseRate(s string) (perSecond float64, msg string) {
	const want = "want messages per second like 500/s, more than 0 and at most 10,000,000/s"
	n, unit, found := strings.Cut(s, "/")
	if !found || unit != "s" || !decimal(n) {
		return 0, want
	}
	v, err := strconv.ParseFloat(n, 64)
	if err != nil || v <= 0 || v > maxRate {
		return 0, want
	}
	return v, ""
}

// decimal reports whether s is digits with at most one point among them.
func decimal(s string) bool {
	digits, points := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			points++
		default:
			return false
		}
	}
	return digits > 0 && points <= 1
}
