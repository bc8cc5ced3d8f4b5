package runbook

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// link: a narrow or slow link, what nodes send limited to a bit rate or
// held for a delay.

const OpLink Op = "link"

// Link limits what nodes send: link NODE... [--rate RATE] [--delay DUR
// [--jitter DUR] [--to NODE,NODE]]. A step sets what it names and leaves
// the rest as it was.
type Link struct {
	Targets    []Target
	HasRate    bool   // --rate given
	BitsPerSec int64  // 0: no limit
	Rate       string // as written: 10mbit/s, 0
	// HasDelay says --delay was given: each node's packets are held for
	// Delay plus a uniform 0..Jitter (0: no delay), to the nodes of To
	// only when it names some.
	HasDelay      bool
	Delay, Jitter time.Duration
	To            []string
	// DelayWritten is the delay as written, for the evidence: "100ms",
	// "50ms --jitter 20ms --to k2,k3", "0".
	DelayWritten string
}

// maxDelay is the longest delay: beyond it Kafka's own timeouts (a
// request's 30 s) decide the run, not the link.
const maxDelay = 10 * time.Second

func (Link) action() {}

var linkDirective = &Directive{
	Op:    OpLink,
	build: buildLink,
	check: checkLink,
	Name:  "link",
	Summary: "Narrow or slow the nodes' links: what each node sends, to the other nodes and to clients, is limited to RATE by a token bucket on its interface (tc tbf), " +
		"or held for DUR (and a uniform 0..jitter more, a connection's packets kept in order) by a process of kafkabook's own in the node's network namespace (an NFQUEUE rule; the local backend only). " +
		"What a node receives is not touched: a follower is slowed by slowing its leader's link, and a link slow both ways is two steps, one for each side (`link k1 --to k2 --delay 50ms`, `link k2 --to k1 --delay 50ms`). " +
		"A step sets what it names and keeps the rest; a node has one delay, which a later --delay replaces. Undone by heal, or by --rate 0 and --delay 0.",
	Args: []ArgSpec{{Name: "NODE", Kind: KindTarget, Many: true}},
	Flags: []FlagSpec{
		{Name: "rate", Kind: KindText, Meta: "RATE",
			Help: "Bits per second: `500kbit/s`, `10mbit/s`, `1gbit/s` (k, m, g are 1000s), or `0` to remove the limit."},
		{Name: "delay", Kind: KindText, Meta: "DUR",
			Help: "Hold each packet the node sends this long: `100ms`, `1s` (at most 10s), or `0` to remove the delay. The step's evidence measures it: TCP handshakes with the node's broker over the delayed link."},
		{Name: "jitter", Kind: KindDuration, Meta: "DUR",
			Help: "With --delay: add a uniform draw of 0 to DUR to each packet's delay (never less than --delay); a connection's packets still leave in order."},
		{Name: "to", Kind: KindText, Meta: "NODE,NODE",
			Help: "With --delay: delay only what the node sends to these nodes (`k2,k3`), one way; without it, everything it sends, to clients too."},
	},
	Example: `link leader(t) --rate 10mbit/s
link k2 --delay 50ms --jitter 10ms`,
	Lands: []FaultKind{
		{Op: "link", Opens: "narrow link", EndedBy: []string{"heal"}, Phrase: "narrow link of ", Off: "0", Repair: "heal", Flag: "rate",
			Observed: "the token bucket read back from the node's kernel at its rate, then, where it ends (--rate 0, heal, the run's end), the bytes and packets it sent, dropped and held back (tc's counters); no bucket at the step's rate makes it unproven",
			Cannot:   map[string]string{"external": "applies only the node faults of its cluster file"}},
		{Op: "link in force", Phrase: "narrow links at the run's end"},
		// delay is link --delay: its argument is the delay as written
		// ("100ms", "50ms --jitter 10ms --to k2,k3"), "0" when removed.
		{Op: "delay", Opens: "slow link", EndedBy: []string{"heal"}, Phrase: "delay on the link of ", Off: "0", Repair: "heal", Flag: "delay",
			Observed: "TCP handshakes with the node's broker port from where the clients run (this machine, or the clients' pod), or from the first node of --to, timed before and after (median, min and max); a delay they do not show makes it unproven",
			Cannot:   map[string]string{"external": "applies only the node faults of its cluster file"}},
	},
	Hurts: true,
}

func buildLink(st *Step) Action {
	l := Link{Targets: st.targets(), HasRate: st.given("rate"), Rate: st.flagStr("rate"), HasDelay: st.given("delay")}
	l.BitsPerSec, _ = parseBitRate(l.Rate)
	if l.HasDelay {
		l.Delay, _ = parseDelay(st.flagStr("delay"))
		l.Jitter = st.flagDuration("jitter")
		if to := st.flagStr("to"); to != "" {
			l.To = strings.Split(to, ",")
		}
		l.DelayWritten = st.flagStr("delay")
		if l.Jitter > 0 {
			l.DelayWritten += " --jitter " + st.flagStr("jitter")
		}
		if len(l.To) > 0 {
			l.DelayWritten += " --to " + st.flagStr("to")
		}
	}
	return l
}

func checkLink(c *checker, st *Step, _ string, _ Pos) {
	rate, delay := st.given("rate"), st.given("delay")
	if !rate && !delay {
		c.errorf(st.lineEnd(), "link needs --rate RATE, --delay DUR or both")
		return
	}
	if rate {
		if _, msg := parseBitRate(st.flagStr("rate")); msg != "" {
			c.errorf(st.flagPos("rate"), "bad --rate %q: %s", st.flagStr("rate"), msg)
		}
	}
	for _, f := range []string{"jitter", "to"} {
		if st.given(f) && !delay {
			c.errorf(st.flagPos(f), "--%s needs --delay: it shapes the delay, not the rate (a rate limit is on the node's whole interface)", f)
		}
	}
	if !delay {
		return
	}
	d, msg := parseDelay(st.flagStr("delay"))
	if msg != "" {
		c.errorf(st.flagPos("delay"), "bad --delay %q: %s", st.flagStr("delay"), msg)
	}
	if d == 0 && msg == "" && (st.given("jitter") || st.given("to")) {
		c.errorf(st.flagPos("delay"), "--delay 0 removes the node's delay: give it without --jitter and --to")
	}
	if j := st.flagDuration("jitter"); j > maxDelay {
		c.errorf(st.flagPos("jitter"), "--jitter %s is too long: at most %s", st.flagStr("jitter"), maxDelay)
	}
	if st.given("to") {
		c.checkLinkTo(st)
	}
}

// checkLinkTo checks --to: nodes k1..kN, none of them a node the step
// delays.
func (c *checker) checkLinkTo(st *Step) {
	pos := st.flagPos("to")
	var nodes []string
	for _, a := range st.Args {
		if t := a.Target(); t.Node != "" {
			nodes = append(nodes, t.Node)
		}
	}
	for _, part := range strings.Split(st.flagStr("to"), ",") {
		t, ok := parseTarget(part)
		switch {
		case !ok || t.Node == "":
			c.errorf(pos, "bad --to %q: want nodes k1..k%d separated by commas", st.flagStr("to"), c.nodeCount())
			return
		case t.ID() > c.nodeCount():
			c.errorf(pos, "--to %s: node %s does not exist: the runbook has %s", st.flagStr("to"), t.Node, nodesPhrase(c.nodeCount()))
			return
		case slices.Contains(nodes, t.Node):
			c.errorf(pos, "--to %s: %s is delayed by this step; a node's traffic to itself is not delayed", st.flagStr("to"), t.Node)
			return
		}
	}
}

// parseDelay reads --delay: a Go duration up to maxDelay, or 0; msg says
// what is wrong with anything else.
func parseDelay(s string) (time.Duration, string) {
	if s == "0" {
		return 0, ""
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil || d <= 0:
		return 0, "want a duration like 100ms or 1s, or 0 for no delay"
	case d > maxDelay:
		return 0, fmt.Sprintf("at most %s: a longer delay leaves the run to Kafka's own timeouts", maxDelay)
	}
	return d, ""
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
