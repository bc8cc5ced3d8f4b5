package runbook

import (
	"regexp"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// Action is what a step does, typed and validated by Load for the run it
// was expanded for: the engine runs it without reading the step's text or
// a flag by name. Each directive's registry entry builds its Action; a
// directive family shares one type (Fault for kill, stop, start, ...).
type Action interface{ action() }

// TopicCreate creates a topic: topic create NAME.
type TopicCreate struct {
	Topic             string
	Partitions        int32
	Replicas          [][]int32         // broker ids per partition; nil: ReplicationFactor
	ReplicationFactor int16             // 0: every node
	Config            map[string]string // topic configurations
}

// Produce sends numbered messages: produce TOPIC --acks ...
type Produce struct {
	Topic string
	// Client is the step's own --client (java, librdkafka@2.15.1);
	// "": the client the run is for.
	Client string
	// Properties are the producer's properties by the client's own names:
	// the front matter's producer: map, the step's -X values and what its
	// shorthand flags (--acks, --idempotent, --retries, --max-in-flight,
	// --delivery-timeout) stand for. A driver gets them as they are;
	// franz-go gets the typed fields below, which they fill.
	Properties map[string]string
	Acks       results.Acks
	// AcksDefault is true when the step gives no acks: the client's
	// default applies (java and librdkafka; check refuses it for
	// franz-go), and Acks means nothing.
	AcksDefault bool
	From        int     // number of the first message
	Count       int     // messages to send; with --for, rate × duration
	Rate        float64 // messages a second; 0: every message at once
	For         time.Duration
	Size        int    // value size in bytes; 0: the id alone
	Keys        int    // distinct keys given in turn; 0: no key
	Key         string // the key of every message; "": none (or Keys)
	EventID     string // the event-id header of every message; "": none
	Idempotent  bool
	Retries     *int // nil: until the delivery timeout
	MaxInFlight int  // 0: franz-go's default
	Timeout     time.Duration
	// RequestTimeout is request.timeout.ms, how long a produce request
	// may wait for its answer before the client tries again; 0: the
	// client's default (kafkabook's franz-go: the delivery timeout, at
	// most 10 s).
	RequestTimeout time.Duration
	Via            Target // zero: any node
	// Transactional sends in transactions of TxnSize records, aborting
	// every AbortEvery-th on purpose (0: none).
	Transactional bool
	TxnSize       int
	AbortEvery    int
}

// Inspect shows a topic's partitions: isr TOPIC.
type Inspect struct {
	Topic string
	Via   Target // zero: any node
}

// Read reads a topic and tallies it: read TOPIC.
type Read struct {
	Topic     string
	Via       Target // zero: any node
	Isolation string // results.ReadCommitted or results.ReadUncommitted
}

// WaitLeader waits for a leader among nodes: wait leader TOPIC in NODES.
type WaitLeader struct {
	Topic   string
	In      []Target // plain nodes
	Timeout time.Duration
}

// WaitISR waits for an ISR size: wait isr TOPIC --size N.
type WaitISR struct {
	Topic   string
	Size    int
	Timeout time.Duration
}

// WaitProducers waits for the background steps: wait producers.
type WaitProducers struct{ Timeout time.Duration }

// WaitHealthy waits for a healthy cluster: wait healthy.
type WaitHealthy struct{ Timeout time.Duration }

// Fault applies a node fault or repair of the cluster backend: kill, stop,
// start, pause, resume, isolate, rejoin. Op is the directive; the engine
// maps it to the backend's operation through a table of its own.
type Fault struct {
	Op      Op
	Targets []Target
}

// Sleep waits a fixed time: sleep DUR.
type Sleep struct{ For time.Duration }

// Logs shows a node's broker log: logs NODE.
type Logs struct {
	Node Target
	Grep *regexp.Regexp // nil: every line
}

// Expect asserts something about the run: expect EXPR.
type Expect struct{ Expr *Expr }

// Partition cuts the network between two sides: partition A | B.
type Partition struct {
	Left, Right []string // node names
	OneWay      bool
	KeepQuorum  bool
}

// Heal removes every partition and packet loss: heal.
type Heal struct{}

// Loss drops a share of a node's packets: loss NODE PERCENT.
type Loss struct {
	Node    Target
	Percent int // 0..100
}

// Consume starts a consumer group member: consume TOPIC --group G ...
type Consume struct {
	Topic, Group string
	Commit       string        // auto, greedy, after or before
	AutoCommit   time.Duration // with --commit auto or greedy; else 0
	Batch        int
	Work         time.Duration // 0: none
	Dedup        string        // none, table or transactional
	CrashAt      int           // 0: no crash
	CrashPoint   string        // with CrashAt: work, effect or handled
	// Client is the step's own --client (java, spring, librdkafka@2.15.1);
	// "": the client the run is for.
	Client string
	// Properties are the consumer's properties by the client's own names:
	// the front matter's consumer: map, then the step's -X values. A
	// driver gets them as they are; franz-go's member takes none.
	Properties map[string]string
	Handoff    bool   // records handled by a worker thread, not the poll loop
	AckMode    string // spring's container AckMode (record, batch, ..., manual_immediate); "": its default
	// AllowUnknown are the -X names let through although the client's
	// catalogue does not know them (--allow-unknown): the member starts
	// with them, and the client's reaction is recorded instead.
	AllowUnknown []string
	// Settings are the settings that shape the experiment as written, for
	// the evidence: those given, and the defaults that apply (the batch
	// always, the interval when the client commits on a timer).
	Settings map[string]string
}

// CrashConsumer kills a group's member: crash consumer G.
type CrashConsumer struct{ Group string }

// StartConsumer starts another member of a group: start consumer G.
type StartConsumer struct{ Group string }

// StopConsumer stops a group's member cleanly: stop consumer G.
type StopConsumer struct{ Group string }

// WaitConsumer waits for a group's member to catch up: wait consumer G.
type WaitConsumer struct {
	Group   string
	Timeout time.Duration
}

// Offsets shows a group's committed offsets: offsets G.
type Offsets struct{ Group string }

// Powerloss cuts the nodes' power: powerloss NODE...
type Powerloss struct{ Targets []Target }

func (TopicCreate) action()   {}
func (Produce) action()       {}
func (Inspect) action()       {}
func (Read) action()          {}
func (WaitLeader) action()    {}
func (WaitISR) action()       {}
func (WaitProducers) action() {}
func (WaitHealthy) action()   {}
func (Fault) action()         {}
func (Sleep) action()         {}
func (Logs) action()          {}
func (Expect) action()        {}
func (Partition) action()     {}
func (Heal) action()          {}
func (Loss) action()          {}
func (Consume) action()       {}
func (CrashConsumer) action() {}
func (StartConsumer) action() {}
func (StopConsumer) action()  {}
func (WaitConsumer) action()  {}
func (Offsets) action()       {}
func (Powerloss) action()     {}
