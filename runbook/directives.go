package runbook

import (
	"fmt"
	"strings"
)

// Kind is the kind of value an argument or flag takes. It decides how the
// value is checked and how it is shown in usage lines.
type Kind int

const (
	KindTopic    Kind = iota + 1 // a topic name
	KindTarget                   // k1..kN, leader(TOPIC) or followers(TOPIC)
	KindNode                     // k1..kN or leader(TOPIC): one node
	KindNodes                    // k1..kN, comma-separated
	KindInt                      // a non-negative integer
	KindDuration                 // a Go duration: 100ms, 5s, 1m30s
	KindAcks                     // 0, 1 or all
	KindRegex                    // a Go regular expression
	KindReplicas                 // replica assignment: 1:2:3 (partitions separated by commas)
	KindKeyValue                 // KEY=VALUE
	KindBool                     // a switch: --flag, or --flag=true|false
	KindExpr                     // an expect expression
	KindKeyword                  // a literal word, such as "in"
	KindRate                     // messages per second: 2000/s
	KindSide                     // a node of a partition's side, or the | between the sides
	KindPercent                  // a share of packets: 30%
	KindGroup                    // a consumer group name, as written in the runbook
	KindWord                     // one of the flag's Choices
	KindRetries                  // a number of retries, or max
	KindText                     // any word: a key, an event id
	KindClient                   // a client: franz-go, java[@V], librdkafka[@V]
	KindProperty                 // a client property NAME=VALUE
)

// ArgSpec describes a positional argument of a directive.
type ArgSpec struct {
	Name string // metavariable in usage lines ("TOPIC"), or the keyword itself
	Kind Kind
	Many bool // one or more values (the rest of the line)
}

// FlagSpec describes a flag of a directive.
type FlagSpec struct {
	Name       string // without dashes
	Short      string // a one-letter name written with one dash (-X), or ""
	Kind       Kind
	Meta       string // metavariable in usage lines ("N", "DUR")
	Required   bool
	Many       bool     // may be repeated; every value is kept
	Deprecated string   // the flag's new name: still accepted, with a warning, and left out of usage lines
	Default    string   // the value when the flag is absent: the one place defaults live
	Max        int      // KindInt: the largest value; 0: maxInt
	Choices    []string // the words a KindWord flag takes
	Help       string   // one sentence for the reference
}

// Op identifies a directive. The parser resolves a step's name to its Op
// once; checks, the engine's dispatch and the reference all key on it, as
// vhs keys its commands on a token type.
type Op uint8

// The directives, in the order of the reference.
const (
	OpTopicCreate Op = iota + 1
	OpProduce
	OpISR
	OpRead
	OpWaitLeader
	OpWaitISR
	OpWaitProducers
	OpWaitHealthy
	OpKill
	OpStop
	OpStart
	OpPause
	OpResume
	OpIsolate
	OpRejoin
	OpSleep
	OpLogs
	OpExpect
	OpPartition
	OpHeal
	OpLoss
	OpConsume
	OpCrashConsumer
	OpStartConsumer
	OpStopConsumer
	OpWaitConsumer
	OpOffsets
	OpPowerloss
	OpTransform
	OpPauseConsumer
	OpResumeConsumer
	OpPauseProducer
	OpResumeProducer
	NumOps // one past the last Op: the size of a table indexed by Op
)

// Directive is one entry of the step language.
type Directive struct {
	Op         Op
	Name       string // "produce", "wait leader", ...
	Usage      string // generated from Args and Flags, e.g. "isr TOPIC [--via NODE]"
	Summary    string // one sentence: what the step does
	Args       []ArgSpec
	Flags      []FlagSpec
	Background bool // may run in the background with a trailing &

	// check checks what the syntax cannot: ranges, combinations of flags,
	// and the order of steps (a read before its topic was created). topic
	// is the step's topic argument when it has a valid one.
	check func(c *checker, st *Step, topic string, tp Pos)
	// build turns the checked step into its typed Action, the value the
	// engine runs; every directive has one.
	build func(st *Step) Action
}

func (d *Directive) flag(name string) *FlagSpec {
	for i := range d.Flags {
		if d.Flags[i].Name == name {
			return &d.Flags[i]
		}
	}
	return nil
}

// short returns the flag whose one-letter name is s (-X), or nil.
func (d *Directive) short(s string) *FlagSpec {
	for i := range d.Flags {
		if d.Flags[i].Short != "" && d.Flags[i].Short == s {
			return &d.Flags[i]
		}
	}
	return nil
}

func (d *Directive) flagNames() []string {
	var names []string
	for _, f := range d.Flags {
		names = append(names, "--"+f.Name)
	}
	return names
}

// Common flags, shared so that they read the same everywhere.
var (
	viaFlag = FlagSpec{Name: "via", Kind: KindNode, Meta: "NODE",
		Help: "Ask this node instead of any node of the cluster."}
	waitTimeout = FlagSpec{Name: "timeout", Kind: KindDuration, Meta: "DUR", Default: "60s",
		Help: "Give up, failing the run, after this long."}
)

func faultDirective(op Op, name, summary string) *Directive {
	return &Directive{
		Op:      op,
		build:   buildFault,
		Name:    name,
		Summary: summary,
		Args:    []ArgSpec{{Name: "NODE", Kind: KindTarget, Many: true}},
	}
}

func groupDirective(op Op, name, summary string, build func(*Step) Action) *Directive {
	return &Directive{
		Op:      op,
		build:   build,
		check:   checkConsumerStep,
		Name:    name,
		Summary: summary,
		Args:    []ArgSpec{{Name: "G", Kind: KindGroup}},
	}
}

// Directives is the registry of the step language, in the order of the
// reference. The parser checks every step against it and
// docs/runbook-language.md is generated from it.
var Directives = []*Directive{
	{
		Op:      OpTopicCreate,
		build:   buildTopicCreate,
		check:   checkTopicCreate,
		Name:    "topic create",
		Summary: "Create a topic, with an explicit replica assignment or a replication factor.",
		Args:    []ArgSpec{{Name: "NAME", Kind: KindTopic}},
		Flags: []FlagSpec{
			{Name: "partitions", Kind: KindInt, Meta: "N", Default: "1",
				Help: "Number of partitions."},
			{Name: "replicas", Kind: KindReplicas, Meta: "1:2:3",
				Help: "Broker ids of the replicas, preferred leader first; separate partitions with commas (1:2:3,2:3:1)."},
			{Name: "replication-factor", Kind: KindInt, Meta: "N",
				Help: "Number of replicas when --replicas is not given; default: all nodes."},
			{Name: "config", Kind: KindKeyValue, Meta: "K=V", Many: true,
				Help: "A topic configuration, such as min.insync.replicas=2."},
		},
	},
	{
		Op:         OpProduce,
		build:      buildProduce,
		check:      checkProduceTxn,
		Name:       "produce",
		Summary:    "Send numbered messages m-NNN, all at once or at a fixed rate, and record the result of each in the ledger.",
		Background: true,
		Args:       []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
		Flags: []FlagSpec{
			{Name: "acks", Kind: KindAcks, Meta: "0|1|all",
				Help: "Producer acks: 0 (none), 1 (the leader), all (every in-sync replica); the property acks. Without it the client applies its own default and the evidence records the value in force: franz-go and Java 3.0 and later: all, with idempotence unless enable.idempotence=false is given; librdkafka: all, without idempotence."},
			{Name: "client", Kind: KindClient, Meta: "CLIENT[@V]",
				Help: "Produce through this client instead of the run's (kafkabook run --client, front matter client:): franz-go, java[@kafka-clients version] or librdkafka[@confluent-kafka version]. java defaults to the cluster's Kafka version."},
			{Name: "property", Short: "X", Kind: KindProperty, Meta: "NAME=VALUE", Many: true,
				Help: "A client property by the client's own name, as kcat's -X: -X linger.ms=5 -X compression.type=lz4; over the front matter's producer: map. check refuses a name the client does not have. The flags --acks, --idempotent, --retries, --max-in-flight and --delivery-timeout are shorthands for acks, enable.idempotence, retries, max.in.flight.requests.per.connection and delivery.timeout.ms; franz-go takes only these five and request.timeout.ms."},
			{Name: "from", Kind: KindInt, Meta: "N", Default: "1",
				Help: "Number of the first message."},
			{Name: "count", Kind: KindInt, Meta: "N", Default: "10",
				Help: "Number of messages (with --for: as many as the rate sends in that time)."},
			{Name: "rate", Kind: KindRate, Meta: "N/s",
				Help: "Send on a fixed schedule, N messages a second; without it every message is meant to be sent at once. Latency counts from each message's scheduled time, so a producer held back is charged for the wait."},
			{Name: "for", Kind: KindDuration, Meta: "DUR",
				Help: "With --rate: keep sending for this long (rate × DUR messages) instead of --count."},
			{Name: "size", Kind: KindInt, Meta: "BYTES", Max: maxSize,
				Help: "Value size: the message id, a blank, then filler up to BYTES (the id alone when BYTES is smaller); at most 1,000,000."},
			{Name: "keys", Kind: KindInt, Meta: "N",
				Help: "Give messages N distinct keys in turn, so they spread over the partitions by the key hash; default: no key."},
			{Name: "key", Kind: KindText, Meta: "KEY",
				Help: "Give every message this key (the article's product id), so they all go to one partition in order."},
			{Name: "event-id", Kind: KindText, Meta: "ID",
				Help: "Give every message this event id (header event-id) instead of its message id: the same event sent again, for a consumer's dedup."},
			{Name: "idempotent", Kind: KindBool,
				Help: "Enable producer idempotence (enable.idempotence; needs --acks all)."},
			{Name: "retries", Kind: KindRetries, Meta: "N|max", Default: "max",
				Help: "How many times a message's batch is tried again before its messages fail (retries); max: until the delivery timeout. franz-go counts every try, a metadata lookup that finds the partition without a leader included (so a leaderless partition spends them within a second, where the Java client waits), and does not enforce the limit while it cannot tell whether a try was written: after REQUEST_TIMED_OUT or NOT_ENOUGH_REPLICAS_AFTER_APPEND, and with idempotence after a request that got no answer."},
			{Name: "max-in-flight", Kind: KindInt, Meta: "N",
				Help: "Produce requests in flight per broker (max.in.flight.requests.per.connection); default: franz-go's, 1 without idempotence and always 5 with it (franz-go cannot set another number with idempotence)."},
			{Name: "delivery-timeout", Kind: KindDuration, Meta: "DUR", Default: "120s",
				Help: "How long each message may wait for its ack, retries included (delivery.timeout.ms); the default is franz-go's: without the flag java and librdkafka apply their own (120s and 300s)."},
			{Name: "transactional", Kind: KindBool,
				Help: "Send in transactions, with a transactional.id made of the topic, the step's line and the run; every transaction's outcome (committed, aborted, unknown) is recorded with its records, producer id and epoch. Needs --acks all (a transactional producer is idempotent). Only records of committed transactions count as acknowledged; those of aborted ones are failed in the ledger."},
			{Name: "txn-size", Kind: KindInt, Meta: "N", Default: "10",
				Help: "With --transactional: records per transaction (the last may hold fewer)."},
			{Name: "abort-every", Kind: KindInt, Meta: "K",
				Help: "With --transactional: abort every K-th transaction on purpose (the K-th, 2K-th, ...); default: commit them all."},
			viaFlag,
			{Name: "timeout", Kind: KindDuration, Meta: "DUR", Deprecated: "delivery-timeout",
				Help: "The old name of --delivery-timeout."},
		},
	},
	{
		Op:      OpISR,
		build:   buildInspect,
		Name:    "isr",
		Summary: "Show the leader, replicas and in-sync replicas of every partition, from fresh metadata.",
		Args:    []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
		Flags:   []FlagSpec{viaFlag},
	},
	{
		Op:      OpRead,
		build:   buildRead,
		Name:    "read",
		Summary: "Read every partition from the beginning to its high watermark and tally what was found against what was acked.",
		Args:    []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
		Flags: []FlagSpec{
			{Name: "isolation", Kind: KindWord, Meta: "read_uncommitted|read_committed", Default: "read_uncommitted",
				Choices: []string{"read_uncommitted", "read_committed"},
				Help:    "The reader's isolation level: read_uncommitted reads to the high watermark, records of open and aborted transactions included; read_committed reads to the last stable offset and skips records of aborted transactions. Records of transactions are checked against their outcomes either way (see aborted_reads and torn)."},
			viaFlag,
		},
	},
	{
		Op:      OpWaitLeader,
		build:   buildWaitLeader,
		Name:    "wait leader",
		Summary: "Wait until the leader of the topic's partitions is one of the given nodes.",
		Args: []ArgSpec{
			{Name: "TOPIC", Kind: KindTopic},
			{Name: "in", Kind: KindKeyword},
			{Name: "NODE,NODE", Kind: KindNodes, Many: true},
		},
		Flags: []FlagSpec{waitTimeout},
	},
	{
		Op:      OpWaitISR,
		build:   buildWaitISR,
		check:   checkWaitISR,
		Name:    "wait isr",
		Summary: "Wait until the ISR of the topic's partitions has exactly N members.",
		Args:    []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
		Flags: []FlagSpec{
			{Name: "size", Kind: KindInt, Meta: "N", Required: true,
				Help: "Number of in-sync replicas to wait for."},
			waitTimeout,
		},
	},
	{
		Op:      OpWaitProducers,
		build:   buildWaitProducers,
		check:   checkWaitProducers,
		Name:    "wait producers",
		Summary: "Wait until every background produce step started before it has finished.",
		Flags:   []FlagSpec{waitTimeout},
	},
	{
		Op:      OpWaitHealthy,
		build:   buildWaitHealthy,
		Name:    "wait healthy",
		Summary: "Wait until every node is up and connected and every ISR is full.",
		Flags:   []FlagSpec{waitTimeout},
	},
	faultDirective(OpKill, "kill", "Kill the nodes' broker processes with SIGKILL."),
	faultDirective(OpStop, "stop", "Stop the nodes' broker processes cleanly with SIGTERM."),
	faultDirective(OpStart, "start", "Start the nodes' broker processes again."),
	faultDirective(OpPause, "pause", "Freeze the nodes' broker processes with SIGSTOP."),
	faultDirective(OpResume, "resume", "Continue paused nodes with SIGCONT."),
	faultDirective(OpIsolate, "isolate", "Cut the nodes off the network: they can reach neither each other nor the clients."),
	faultDirective(OpRejoin, "rejoin", "Connect isolated nodes to the network again."),
	{
		Op:      OpSleep,
		build:   buildSleep,
		Name:    "sleep",
		Summary: "Wait for a fixed time.",
		Args:    []ArgSpec{{Name: "DUR", Kind: KindDuration}},
	},
	{
		Op:      OpLogs,
		build:   buildLogs,
		Name:    "logs",
		Summary: "Show the node's broker log lines since the run began.",
		Args:    []ArgSpec{{Name: "NODE", Kind: KindNode}},
		Flags: []FlagSpec{
			{Name: "grep", Kind: KindRegex, Meta: "REGEX",
				Help: "Only lines matching this regular expression (Go syntax; quote it if it has blanks)."},
		},
	},
	{
		Op:      OpExpect,
		build:   buildExpect,
		check:   checkExpect,
		Name:    "expect",
		Summary: "Assert something about a topic, checked in every run; a failed expectation fails the run.",
		Args:    []ArgSpec{{Name: "EXPR", Kind: KindExpr, Many: true}},
	},
	{
		Op:      OpPartition,
		build:   buildPartition,
		check:   checkPartition,
		Name:    "partition",
		Summary: "Cut the network between two groups of nodes, written NODE... | NODE...; clients still reach every node. Undone by heal.",
		Args:    []ArgSpec{{Name: "NODE... | NODE...", Kind: KindSide, Many: true}},
		Flags: []FlagSpec{
			{Name: "one-way", Kind: KindBool,
				Help: "Drop only the traffic from the left side to the right side (TCP needs both ways, so connections still fail; datagrams the other way pass)."},
			{Name: "keep-quorum", Kind: KindBool,
				Help: "Cut only the broker listeners (replication fetches and other broker-to-broker requests) and let the controller quorum talk across the cut: followers fall out of the ISR while the leader can still shrink it."},
		},
	},
	{
		Op:      OpHeal,
		build:   buildHeal,
		Name:    "heal",
		Summary: "Remove every partition and packet loss (not isolation: that is rejoin).",
	},
	{
		Op:      OpLoss,
		build:   buildLoss,
		Name:    "loss",
		Summary: "Drop this share of the packets on the node's links, both ways, until loss NODE 0%. Delay is not available: these kernels have no tc netem.",
		Args:    []ArgSpec{{Name: "NODE", Kind: KindNode}, {Name: "PERCENT", Kind: KindPercent}},
	},
	{
		Op:         OpConsume,
		build:      buildConsume,
		check:      checkConsume,
		Name:       "consume",
		Summary:    "Start a consumer group member as a process of its own that reads the topic, applies each message's effect to the group's SQLite store (a like count per key, an applied count per event id) and commits offsets as --commit says; it runs until crash consumer, stop consumer or the end of the run, so it ends in &.",
		Background: true,
		Args:       []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
		Flags: []FlagSpec{
			{Name: "group", Kind: KindGroup, Meta: "G", Required: true,
				Help: "The consumer group: the name expectations and the other consumer steps use."},
			{Name: "client", Kind: KindClient, Meta: "CLIENT[@V]",
				Help: "Run the member through this client instead of the run's (kafkabook run --client, front matter client:): franz-go (kafkabook's own member), java[@kafka-clients version] (KafkaConsumer), spring[@spring-kafka version] (Spring Kafka's KafkaMessageListenerContainer) or librdkafka[@confluent-kafka version] (confluent-kafka's Consumer). Every client does the same work on the same store (docs/driver-protocol.md, \"Consumer group members\")."},
			{Name: "property", Short: "X", Kind: KindProperty, Meta: "NAME=VALUE", Many: true,
				Help: "A consumer property by the client's own name: -X group.protocol=consumer -X session.timeout.ms=10000; over the front matter's consumer: map. check refuses a name the client does not have, and any property for franz-go, whose member takes none."},
			{Name: "allow-unknown", Kind: KindText, Meta: "NAME", Many: true,
				Help: "Let the step's -X NAME through although the client's catalogue has no such consumer property (the second article's value-serializer): the client gets it unchanged, and instead of failing the step kafkabook records what the client does with it (its unknown_properties, and the lines its own log writes naming it) in the step's output. check still refuses a NAME the client knows, or one the step does not set with -X."},
			{Name: "commit", Kind: KindWord, Meta: "auto|greedy|after|before", Required: true, Choices: []string{"auto", "greedy", "after", "before"},
				Help: "auto: the client's own auto-commit (enable.auto.commit=true; franz-go's commits the records of the polls before the last one, as the Java client's poll does); greedy: franz-go only, its GreedyAutoCommit, which commits everything polled, processed or not (the article's timeline); after: commit each message's offset once it is handled (the article's manual ack; with spring, the container commits as --ack-mode says); before: commit, then handle (spring: acknowledge() first, with --ack-mode manual_immediate, its default, or manual)."},
			{Name: "handoff", Kind: KindBool,
				Help: "Hand each record to one worker thread and keep polling, as applications that process on their own threads do; commits are still made by the poll loop (after: of the records the worker finished; auto: the client's own). spring: the listener hands the record over and returns at once, so the container commits as its --ack-mode says (record, batch: before the work is done); with manual ack modes the worker acknowledges once the record is handled."},
			{Name: "ack-mode", Kind: KindWord, Meta: "record|batch|time|count|manual|manual_immediate", Choices: []string{"record", "batch", "time", "count", "manual", "manual_immediate"},
				Help: "spring only, with --commit after: the container's ContainerProperties.AckMode; with manual and manual_immediate the listener calls acknowledge() once the record is handled (the second article's listener). Default: Spring's (batch)."},
			{Name: "auto-commit-interval", Kind: KindDuration, Meta: "DUR", Default: "5s",
				Help: "With --commit auto or greedy: how often offsets are committed (auto.commit.interval.ms)."},
			{Name: "batch", Kind: KindInt, Meta: "N", Default: "10",
				Help: "At most this many messages a poll (max.poll.records)."},
			{Name: "work", Kind: KindDuration, Meta: "DUR",
				Help: "Time each message's processing takes before its effect is applied, so that a crash can land mid-batch; default: none."},
			{Name: "dedup", Kind: KindWord, Meta: "none|table|transactional", Default: "none", Choices: []string{"none", "table", "transactional"},
				Help: "none: apply every delivery; table: the article's handler: skip an event id found in event_handled, else apply the effect, then insert the id in a second transaction; transactional: apply the effect and insert the id in one transaction."},
			{Name: "crash-at", Kind: KindInt, Meta: "N",
				Help: "Kill this member with SIGKILL while it handles the N-th message it receives, at --crash-point."},
			{Name: "crash-point", Kind: KindWord, Meta: "work|effect|handled", Default: "handled", Choices: []string{"work", "effect", "handled"},
				Help: "work: during the message's processing, before its effect (after its commit with --commit before); effect: right after the effect, before the event_handled insert and the commit; handled: after the effect and the insert, before the commit."},
		},
	},
	groupDirective(OpCrashConsumer, "crash consumer", "Kill the group's running member process with SIGKILL, as a server losing its process would: nothing is committed on the way out.", buildCrashConsumer),
	groupDirective(OpStartConsumer, "start consumer", "Start a new member of the group with the settings of its consume step (without the crash): it resumes from the committed offsets.", buildStartConsumer),
	groupDirective(OpStopConsumer, "stop consumer", "Stop the group's member cleanly: it finishes the batch in hand, commits as its mode does and leaves the group.", buildStopConsumer),
	{
		Op:      OpWaitConsumer,
		build:   buildWaitConsumer,
		check:   checkConsumerStep,
		Name:    "wait consumer",
		Summary: "Wait until the group's member has handled every message it was given and its committed offsets have reached the end of every partition of its topic, or until it crashed (a member started with --crash-at is waited for until it crashes).",
		Args:    []ArgSpec{{Name: "G", Kind: KindGroup}},
		Flags:   []FlagSpec{waitTimeout},
	},
	groupDirective(OpOffsets, "offsets", "Show the group's committed offset of every partition, asked of the cluster through the admin API (OffsetFetch), next to each partition's end offset.", buildOffsets),
	{
		Op:      OpPowerloss,
		build:   buildPowerloss,
		Name:    "powerloss",
		Summary: "Kill the nodes with SIGKILL and throw away every write they had not fsynced, as losing power would; start brings them back on what was durable. Needs the local backend with FUSE and root.",
		Args:    []ArgSpec{{Name: "NODE", Kind: KindTarget, Many: true}},
		check:   checkPowerloss,
	},
	transformDirective,
	pauseConsumerDirective,
	resumeConsumerDirective,
	pauseProducerDirective,
	resumeProducerDirective,
}

var directiveByName = map[string]*Directive{}

func init() {
	for i, d := range Directives {
		if d.Op != Op(i+1) {
			panic(fmt.Sprintf("runbook: directive %q is entry %d of Directives but has Op %d", d.Name, i, d.Op))
		}
		if d.build == nil {
			panic(fmt.Sprintf("runbook: directive %q has no build function", d.Name))
		}
		directiveByName[d.Name] = d
		d.Usage = usage(d)
	}
}

// Lookup returns the directive with the given name, or nil.
func Lookup(name string) *Directive { return directiveByName[name] }

func usage(d *Directive) string {
	parts := []string{d.Name}
	for _, a := range d.Args {
		s := a.Name
		if a.Many && a.Kind != KindNodes && a.Kind != KindExpr && a.Kind != KindSide {
			s += "..."
		}
		parts = append(parts, s)
	}
	for _, f := range d.Flags {
		if f.Deprecated != "" {
			continue
		}
		s := "--" + f.Name
		if f.Short != "" {
			s = "-" + f.Short
		}
		if f.Kind != KindBool {
			s += " " + f.Meta
		}
		if !f.Required {
			s = "[" + s + "]"
		}
		if f.Many {
			s += "..."
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}
