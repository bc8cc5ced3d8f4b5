package runbook

import (
	"strconv"
	"strings"
)

// link: a narrow link, what nodes send limited to a bit rate.

const OpLink Op = "link"

// Link limits what nodes send: link NODE... --rate RATE.
type Link struct {
	Targets    []Target
	BitsPerSec int64  // 0: no limit
	Rate       string // as written: 10mbit/s, 0
}

func (Link) action() {}

var linkDirective = &Directive{
	Op:    OpLink,
	build: buildLink,
	check: checkLink,
	Name:  "link",
	Summary: "Narrow the nodes' links: what each node sends, to the other nodes and to clients, is limited to RATE by a token bucket on its interface (tc tbf); " +
		"what it receives is not, so a follower is slowed by narrowing its leader's link. Undone by heal, or by --rate 0.",
	Args: []ArgSpec{{Name: "NODE", Kind: KindTarget, Many: true}},
	Flags: []FlagSpec{
		{Name: "rate", Kind: KindText, Meta: "RATE", Required: true,
			Help: "Bits per second: `500kbit/s`, `10mbit/s`, `1gbit/s` (k, m, g are 1000s), or `0` to remove the limit."},
	},
	Example: `link leader(t) --rate 10mbit/s`,
	Hurts:   true,
}

func buildLink(st *Step) Action {
	bits, _ := parseBitRate(st.flagStr("rate"))
	return Link{Targets: st.targets(), BitsPerSec: bits, Rate: st.flagStr("rate")}
}

func checkLink(c *checker, st *Step, _ string, _ Pos) {
	if _, msg := parseBitRate(st.flagStr("rate")); msg != "" {
		c.errorf(st.flagPos("rate"), "bad --rate %q: %s", st.flagStr("rate"), msg)
	}
}

// minBitRate is the narrowest link: below it, a Kafka request of a few
// kilobytes takes seconds and the cluster's own timeouts decide the run.
const minBitRate = 64_000

// parseBitRate reads 500kbit/s, 10mbit/s, 1gbit/s, 64000bit/s or 0; msg
// says what is wrong with anything else.
func parseBitRate(s string) (bits int64, msg string) {
	if s == "0" {
		return 0, ""
	}
	num, ok := strings.CutSuffix(s, "bit/s")
	if !ok {
		return 0, "want bits per second like 10mbit/s, 500kbit/s or 1gbit/s, or 0 for no limit"
	}
	bits, ok = scaled(num, map[byte]int64{'k': 1_000, 'm': 1_000_000, 'g': 1_000_000_000}, 100_000_000_000)
	if !ok {
		return 0, "want a whole number of bits per second, like 10mbit/s, up to 100gbit/s"
	}
	if bits < minBitRate {
		return 0, "at least 64kbit/s: a narrower link leaves the run to the cluster's timeouts"
	}
	return bits, ""
}

// scaled reads a whole number with an optional one-letter decimal prefix
// of prefixes ("10m" → 10,000,000), positive and at most limit.
func scaled(num string, prefixes map[byte]int64, limit int64) (int64, bool) {
	mult := int64(1)
	if k := len(num); k > 0 {
		if m, ok := prefixes[num[k-1]]; ok {
			mult, num = m, num[:k-1]
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > limit/mult {
		return 0, false
	}
	return n * mult, true
}
