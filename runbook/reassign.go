package runbook

import (
	"strings"
	"time"
)

// reassign and wait reassigned: a topic's replicas moved to other brokers,
// as kafka-reassign-partitions.sh --execute and --verify do.

const (
	OpReassign       Op = "reassign"
	OpWaitReassigned Op = "wait reassigned"
)

// Reassign moves a topic's replicas: reassign TOPIC --replicas 2:3:4
// [--throttle RATE].
type Reassign struct {
	Topic    string
	Replicas [][]int32 // broker ids per partition, the new preferred leader first
	// Throttle is the replication throttle in bytes per second while the
	// new replicas catch up (0: none); Rate is it as written.
	Throttle int64
	Rate     string
}

// WaitReassigned waits until a topic has no reassignment in progress:
// wait reassigned TOPIC.
type WaitReassigned struct {
	Topic   string
	Timeout time.Duration
}

func (Reassign) action() {}

func (WaitReassigned) action() {}

var reassignDirective = &Directive{
	Op:    OpReassign,
	build: buildReassign,
	check: checkReassign,
	Name:  "reassign",
	Summary: "Move the topic's replicas to the brokers given, as kafka-reassign-partitions.sh --execute does: the new replicas copy the log from the leader, then the old ones are dropped. " +
		"It returns once the controller has taken the reassignment; wait reassigned waits for it to finish. The evidence records it, and the ISR samples show the replicas change.",
	Args: []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
	Flags: []FlagSpec{
		{Name: "replicas", Kind: KindReplicas, Meta: "2:3:1", Required: true,
			Help: "The new replicas' broker ids, the preferred leader first; separate partitions with commas."},
		{Name: "throttle", Kind: KindText, Meta: "RATE",
			Help: "Limit the replication of the moving replicas to this many bytes a second, `500kB/s`, `10MB/s` (k and M are 1000s), on every broker, as --throttle does; wait reassigned removes the throttle."},
	},
	Example: "reassign t --replicas 2:3:1 --throttle 10MB/s",
	Lands: []FaultKind{
		{Op: "reassign", Opens: "reassigning", EndedBy: []string{"reassigned"}, Phrase: "reassignment of "},
	},
	Hurts: true,
}

var waitReassignedDirective = &Directive{
	Op:      OpWaitReassigned,
	build:   buildWaitReassigned,
	Name:    "wait reassigned",
	Summary: "Wait until no reassignment of the topic's partitions is in progress, then remove the replication throttle a reassign set, as kafka-reassign-partitions.sh --verify does.",
	Args:    []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
	Flags:   []FlagSpec{{Name: "timeout", Kind: KindDuration, Meta: "DUR", Default: "3m", Help: "Give up, failing the run, after this long."}},
	Example: "wait reassigned t",
	Lands: []FaultKind{
		{Op: "reassigned", Phrase: "end of the reassignment of "},
	},
	Hurts: true,
}

func buildReassign(st *Step) Action {
	r := Reassign{Topic: st.arg(0).Text, Rate: st.flagStr("throttle")}
	r.Replicas, _ = parseReplicas(st.flagStr("replicas"), 0)
	r.Throttle, _ = parseByteRate(r.Rate)
	return r
}

func buildWaitReassigned(st *Step) Action {
	return WaitReassigned{Topic: st.arg(0).Text, Timeout: st.flagDuration("timeout")}
}

func checkReassign(c *checker, st *Step, _ string, _ Pos) {
	if r := st.flagStr("throttle"); r != "" {
		if _, msg := parseByteRate(r); msg != "" {
			c.errorf(st.flagPos("throttle"), "bad --throttle %q: %s", r, msg)
		}
	}
}

// parseByteRate reads 500kB/s, 10MB/s or 4096B/s; msg says what is wrong
// with anything else.
func parseByteRate(s string) (bytes int64, msg string) {
	num, ok := strings.CutSuffix(s, "B/s")
	if !ok {
		return 0, "want bytes per second like 500kB/s or 10MB/s"
	}
	bytes, ok = scaled(num, map[byte]int64{'k': 1_000, 'M': 1_000_000}, 10_000_000_000)
	if !ok {
		return 0, "want a whole number of bytes per second, like 500kB/s, up to 10000MB/s"
	}
	return bytes, ""
}
