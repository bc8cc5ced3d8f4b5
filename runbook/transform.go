package runbook

import "time"

// Transform starts a consume-transform-produce member: transform IN --to
// OUT --group G [--eos] ... &. Its group takes the consumer verbs: crash
// consumer G kills the member, start consumer G starts its successor
// (with EOS, under the same transactional.id, which fences the old one),
// stop consumer G, wait consumer G and offsets G.
type Transform struct {
	In, Out, Group string
	EOS            bool
	Batch          int
	Work           time.Duration // 0: none
	CrashAt        int           // 0: no crash
	// Effect also applies each record's effect to the group's SQLite
	// store, as consume does, after its derived record is written and
	// before the poll's commit: an effect outside Kafka, which the
	// transaction does not cover. Dedup is consume's --dedup for it.
	Effect bool
	Dedup  string // none, table or transactional
	// Client is the step's own --client (franz-go or java[@V]); "": the
	// client the run is for.
	Client   string
	Settings map[string]string
}

func (Transform) action() {}

// OpTransform is transform's Op.
const OpTransform Op = "transform"

// transformDirective is the registry entry of transform.
var transformDirective = &Directive{
	Op:         OpTransform,
	build:      buildTransform,
	check:      checkTransform,
	Name:       "transform",
	Example:    "topic create t2 --replicas 1:2:3\ntransform t --to t2 --group x --eos --batch 5 &",
	Summary:    "Start a consume-transform-produce member as a process of its own: it reads IN (read_committed) in the group, writes for each record a derived record to OUT whose value starts with the input's id, and commits the input offsets: with --eos in the same transaction as the derived records (franz-go's GroupTransactSession, or with --client java a KafkaProducer's sendOffsetsToTransaction; transactional.id fixed per group), without it after the writes (at least once). The group takes the consumer verbs: crash consumer, start consumer (the successor; with --eos it fences the old member), stop consumer, wait consumer, offsets. After the run a read_committed read of OUT checks that every input has its derived record exactly once (eos_duplicates, eos_missing).",
	Background: true,
	Args:       []ArgSpec{{Name: "IN", Kind: KindTopic}},
	Flags: []FlagSpec{
		{Name: "to", Kind: KindTopic, Meta: "OUT", Required: true,
			Help: "The output topic; create it with topic create first."},
		{Name: "group", Kind: KindGroup, Meta: "G", Required: true,
			Help: "The consumer group: the name expectations and the consumer steps use."},
		{Name: "client", Kind: KindClient, Meta: "CLIENT[@V]",
			Help: "Run the member through this client instead of the run's: franz-go (kafkabook's own member, a GroupTransactSession) or java[@kafka-clients version] (a read_committed KafkaConsumer and a KafkaProducer, sendOffsetsToTransaction with the consumer's group metadata). Both write the same derived records and report the same events (docs/driver-protocol.md, \"Transform members\")."},
		{Name: "eos", Kind: KindBool,
			Help: "Exactly once: each poll's derived records and its input offsets go in one transaction (sendOffsetsToTransaction); without it the offsets are committed after the derived records are acknowledged."},
		{Name: "batch", Kind: KindInt, Meta: "N", Default: "10",
			Help: "At most this many records a poll, and so a transaction (max.poll.records)."},
		{Name: "work", Kind: KindDuration, Meta: "DUR",
			Help: "Time each record's processing takes before its derived record is written; default: none."},
		{Name: "crash-at", Kind: KindInt, Meta: "N",
			Help: "Kill this member with SIGKILL right after it wrote the derived record of the N-th record it received (and applied its effect, with --effect), before its poll's commit."},
		{Name: "effect", Kind: KindBool,
			Help: "Also apply each record's effect to the group's SQLite store (the product counter consume keeps) once its derived record is written, before the poll's commit: an effect outside Kafka, which no Kafka transaction covers. applied_twice(G) counts its doubles after the run."},
		{Name: "dedup", Kind: KindWord, Meta: "none|table|transactional", Default: "none", Choices: []string{"none", "table", "transactional"},
			Help: "With --effect, as consume's --dedup: table: skip the effect of an event id found in event_handled, else apply it, then insert the id in a second transaction; transactional: apply the effect and insert the id in one transaction. The derived record is written either way."},
	},
}

// transformSettings are the transform flags recorded with the evidence.
var transformSettings = []string{"batch", "work", "crash-at", "effect", "dedup"}

func buildTransform(st *Step) Action {
	a := Transform{
		In: st.arg(0).Text, Out: st.flagStr("to"), Group: st.flagStr("group"),
		EOS: st.flagBool("eos"), Batch: st.flagInt("batch"), Work: st.flagDuration("work"),
		Effect: st.flagBool("effect"), Dedup: st.flagStr("dedup"), Client: st.flagStr("client"), Settings: map[string]string{},
	}
	if st.given("crash-at") {
		a.CrashAt = st.flagInt("crash-at")
	}
	for _, f := range transformSettings {
		if v := st.flagStr(f); (st.given(f) || f == "batch") && v != "" {
			a.Settings[f] = v
		}
	}
	return a
}

// checkTransform: a transform runs in the background, reads and writes
// two different topics, and names a group of its own.
func checkTransform(c *checker, st *Step, topic string, tp Pos) {
	c.positive(st, "batch")
	c.positive(st, "crash-at")
	if st.given("dedup") && !st.flagBool("effect") {
		c.errorf(st.flagPos("dedup"), "--dedup needs --effect: it guards the effect in the group's store")
	}
	for _, cl := range c.stepClients(st) {
		if name, _, err := ParseClient(cl); err == nil && name != FranzGo && name != Java {
			p := st.lineEnd()
			if st.given("client") {
				p = st.flagPos("client")
			}
			c.errorf(p, "transform runs through %s: a transform member runs on franz-go or java (--client java)", name)
			break
		}
	}
	if !st.Background {
		c.errorf(st.Pos, "transform runs until crash consumer, stop consumer or the end of the run: end the step with &")
	}
	if out := st.flagStr("to"); out != "" && out == topic {
		c.errorf(st.flagPos("to"), "transform reads and writes %s: give --to another topic", topic)
	}
	c.declareGroup(st, topic)
}
