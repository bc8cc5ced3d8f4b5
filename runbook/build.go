package runbook

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The build functions of the registry: each turns a checked step into its
// Action. They run after the step's checks; a value the checker refused
// builds as zero, and a Doc with errors never runs.

func buildTopicCreate(st *Step) Action {
	a := TopicCreate{
		Topic:      st.arg(0).Text,
		Partitions: int32(st.flagInt("partitions")),
		Config:     st.flagKeyValues("config"),
	}
	if st.given("replicas") {
		a.Replicas, _ = parseReplicas(st.flagStr("replicas"), 0)
	}
	if st.given("replication-factor") {
		a.ReplicationFactor = int16(st.flagInt("replication-factor"))
	}
	return a
}

func buildProduce(st *Step) Action {
	a := Produce{
		Topic:       st.arg(0).Text,
		Client:      st.flagStr("client"),
		From:        st.flagInt("from"),
		Count:       st.flagInt("count"),
		For:         st.flagDuration("for"),
		Size:        st.flagInt("size"),
		Keys:        st.flagInt("keys"),
		Key:         st.flagStr("key"),
		EventID:     st.flagStr("event-id"),
		Idempotent:  st.flagBool("idempotent"),
		MaxInFlight: st.flagInt("max-in-flight"),
		Timeout:     st.flagDuration("delivery-timeout"),
		Via:         st.flagTarget("via"),
	}
	if st.flagBool("transactional") {
		a.Transactional, a.TxnSize, a.AbortEvery = true, st.flagInt("txn-size"), st.flagInt("abort-every")
	}
	a.Rate, _ = parseRate(st.flagStr("rate"))
	if a.Rate > 0 && a.For > 0 {
		a.Count = forCount(a.Rate, a.For)
	}
	return a
}

// forCount is how many messages --rate R --for D sends.
func forCount(rate float64, d time.Duration) int {
	return int(math.Round(rate * d.Seconds()))
}

func buildInspect(st *Step) Action {
	return Inspect{Topic: st.arg(0).Text, Via: st.flagTarget("via")}
}

func buildRead(st *Step) Action {
	return Read{Topic: st.arg(0).Text, Via: st.flagTarget("via"), Isolation: st.flagStr("isolation")}
}

func buildWaitLeader(st *Step) Action {
	a := WaitLeader{Topic: st.arg(0).Text, Timeout: st.flagDuration("timeout")}
	for _, n := range st.Args[min(1, len(st.Args)):] {
		a.In = append(a.In, n.Target())
	}
	return a
}

func buildWaitISR(st *Step) Action {
	return WaitISR{Topic: st.arg(0).Text, Size: st.flagInt("size"), Timeout: st.flagDuration("timeout")}
}

func buildWaitProducers(st *Step) Action {
	return WaitProducers{Timeout: st.flagDuration("timeout")}
}

func buildWaitHealthy(st *Step) Action {
	return WaitHealthy{Timeout: st.flagDuration("timeout")}
}

// targets is every argument of a step as a node target.
func (st *Step) targets() []Target {
	var out []Target
	for _, a := range st.Args {
		out = append(out, a.Target())
	}
	return out
}

func buildFault(st *Step) Action { return Fault{Op: st.Op, Targets: st.targets()} }

func buildPowerloss(st *Step) Action { return Powerloss{Targets: st.targets()} }

func buildSleep(st *Step) Action {
	d, _ := time.ParseDuration(st.arg(0).Text)
	return Sleep{For: d}
}

func buildLogs(st *Step) Action {
	a := Logs{Node: st.arg(0).Target()}
	if g := st.flagStr("grep"); g != "" {
		a.Grep, _ = regexp.Compile(g)
	}
	return a
}

func buildExpect(st *Step) Action { return Expect{Expr: st.Expr} }

func buildPartition(st *Step) Action {
	left, right, _ := st.sides()
	return Partition{Left: left, Right: right, OneWay: st.flagBool("one-way"), KeepQuorum: st.flagBool("keep-quorum")}
}

func buildHeal(st *Step) Action { return Heal{} }

func buildLoss(st *Step) Action {
	n, _ := strconv.Atoi(strings.TrimSuffix(st.arg(1).Text, "%"))
	return Loss{Node: st.arg(0).Target(), Percent: n}
}

// consumeSettings are the consume flags recorded with the evidence.
var consumeSettings = []string{"client", "batch", "work", "auto-commit-interval", "crash-at", "crash-point", "handoff", "ack-mode"}

func buildConsume(st *Step) Action {
	a := Consume{
		Topic: st.arg(0).Text, Group: st.flagStr("group"),
		Commit: st.flagStr("commit"), Dedup: st.flagStr("dedup"),
		Batch: st.flagInt("batch"), Work: st.flagDuration("work"),
		Client: st.flagStr("client"), Handoff: st.flagBool("handoff"), AckMode: st.flagStr("ack-mode"),
		Settings: map[string]string{},
	}
	timer := a.Commit == "auto" || a.Commit == "greedy"
	if timer {
		a.AutoCommit = st.flagDuration("auto-commit-interval")
	}
	if st.given("crash-at") {
		a.CrashAt, a.CrashPoint = st.flagInt("crash-at"), st.flagStr("crash-point")
	}
	for _, f := range st.Flags["allow-unknown"] {
		a.AllowUnknown = append(a.AllowUnknown, f.Text)
	}
	if len(a.AllowUnknown) > 0 {
		a.Settings["allow-unknown"] = strings.Join(a.AllowUnknown, ",")
	}
	for _, f := range consumeSettings {
		applies := st.given(f) || f == "batch" || f == "auto-commit-interval" && timer
		if v := st.flagStr(f); applies && v != "" {
			a.Settings[f] = v
		}
	}
	return a
}

func buildCrashConsumer(st *Step) Action { return CrashConsumer{Group: st.arg(0).Text} }
func buildStartConsumer(st *Step) Action { return StartConsumer{Group: st.arg(0).Text} }
func buildStopConsumer(st *Step) Action  { return StopConsumer{Group: st.arg(0).Text} }
func buildOffsets(st *Step) Action       { return Offsets{Group: st.arg(0).Text} }

func buildWaitConsumer(st *Step) Action {
	return WaitConsumer{Group: st.arg(0).Text, Timeout: st.flagDuration("timeout")}
}
