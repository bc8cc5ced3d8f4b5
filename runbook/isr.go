package runbook

// isr: a topic's partitions from fresh metadata.

const OpISR Op = "isr"

// Inspect shows a topic's partitions: isr TOPIC.
type Inspect struct {
	Topic string
	Via   Target // zero: any node
}

func (Inspect) action() {}

var isrDirective = &Directive{
	Op:      OpISR,
	build:   buildInspect,
	Name:    "isr",
	Summary: "Show the leader, replicas and in-sync replicas of every partition, from fresh metadata.",
	Args:    []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
	Flags:   []FlagSpec{viaFlag},
	Example: `isr t --via k2`,
}

func buildInspect(st *Step) Action {
	return Inspect{Topic: st.arg(0).Text, Via: st.flagTarget("via")}
}
