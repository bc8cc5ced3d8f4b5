package runbook

import "github.com/kafkabook/kafkabook/results"

// read: a topic read to its high watermark and tallied.

const OpRead Op = "read"

// Read reads a topic and tallies it: read TOPIC.
type Read struct {
	Topic     string
	Via       Target // zero: any node
	Isolation results.Isolation
}

func (Read) action() {}

var readDirective = &Directive{
	Op:      OpRead,
	build:   buildRead,
	Name:    "read",
	Summary: "Read every partition from the beginning to its high watermark and tally what was found against what was acked.",
	Args:    []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
	Flags: []FlagSpec{
		{Name: "isolation", Kind: KindWord, Meta: "read_uncommitted|read_committed", Default: string(results.ReadUncommitted),
			Choices: []string{string(results.ReadUncommitted), string(results.ReadCommitted)},
			Help:    "The reader's isolation level: read_uncommitted reads to the high watermark, records of open and aborted transactions included; read_committed reads to the last stable offset and skips records of aborted transactions. Records of transactions are checked against their outcomes either way (see aborted_reads and torn)."},
		viaFlag,
	},
	Example: `read t --via k2`,
}

func buildRead(st *Step) Action {
	return Read{Topic: st.arg(0).Text, Via: st.flagTarget("via"), Isolation: results.Isolation(st.flagStr("isolation"))}
}
