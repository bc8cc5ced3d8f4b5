// Package results is the evidence model of a kafkabook run: what was sent,
// what was acknowledged, what a reader found, and what the cluster did
// meanwhile. It is pure data plus the arithmetic on it (tallies, latency
// percentiles); the engine fills it, the report renders it.
package results

import (
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"time"
)

// SchemaVersion is the version of results.json. Bump it on any change that a
// reader of older files would misread.
const SchemaVersion = 4

// Results is the content of one results.json: every run of one runbook
// against one Kafka version.
type Results struct {
	Schema     int        `json:"schema"`
	Complete   bool       `json:"complete"`        // false when the run stopped early (error, Ctrl-C)
	Error      string     `json:"error,omitempty"` // why it stopped early
	Title      string     `json:"title"`
	Runbook    Runbook    `json:"runbook"`
	Provenance Provenance `json:"provenance"`
	Runs       []Run      `json:"runs"`
}

// Runbook identifies the runbook that produced the evidence. A copy of its
// source is stored beside results.json under File, so a report can be rebuilt
// after the runbook changed.
type Runbook struct {
	Name   string `json:"name"`   // base name without .md, e.g. "producer-acks"; with a sweep's combination, producer-acks.acks-1.mis-2
	Path   string `json:"path"`   // as given on the command line
	SHA256 string `json:"sha256"` // of the source
	File   string `json:"file"`   // the stored copy, relative to results.json: "runbook.md"
	// Sweep and Combination are a swept runbook's: the file's base name
	// (the sweep's, which its settings page is named after) and the
	// combination this evidence ran with, in the sweep's order, as
	// "acks=1 mis=2". Empty without a sweep. Added within schema 4.
	Sweep       string `json:"sweep,omitempty"`
	Combination string `json:"combination,omitempty"`
}

// Provenance is everything needed to say how the evidence was produced.
type Provenance struct {
	Tool          string            `json:"tool"`   // kafkabook version
	Commit        string            `json:"commit"` // vcs revision of the tool, "+dirty" when modified
	Kafka         string            `json:"kafka"`  // Kafka version
	Backend       string            `json:"backend"`
	Nodes         int               `json:"nodes"`
	Broker        map[string]string `json:"broker"` // server.properties overrides
	FranzGo       string            `json:"franz_go"`
	Params        map[string]string `json:"params"`
	Host          string            `json:"host"`
	GoVersion     string            `json:"go"`
	Java          string            `json:"java,omitempty"`
	Start         time.Time         `json:"start"`
	End           time.Time         `json:"end"`
	Repeat        int               `json:"repeat"`
	ClusterReused bool              `json:"cluster_reused"`
	// Quorum is the controller quorum the cluster was formatted with:
	// "static" (controller.quorum.voters) or "dynamic" (KIP-853); ""
	// when the backend cannot say (an external cluster) or the evidence
	// is older than the field.
	Quorum string `json:"quorum,omitempty"`
	// Cell and Batch name the matrix cell the run was (kafkabook plan,
	// run --cell) and the batch of cells it belongs to; empty otherwise.
	Cell  string `json:"cell,omitempty"`
	Batch string `json:"batch,omitempty"`
	// Client is the client the runbook ran with (kafkabook run --client,
	// the front matter's client:), as asked: java, java@3.9.1,
	// librdkafka@2.15.1; "" for franz-go, the default, so that evidence
	// from before clients were a dimension reads the same. Added in
	// schema version 4.
	Client string `json:"client,omitempty"`
	// Clients are the clients under test the runs started, each once per
	// distinct version and configuration: the exact version and the
	// configuration in force, as a driver's startup_complete said (for
	// franz-go's driver and members, as the client reads it back).
	// Added in schema version 4.
	Clients []ClientInfo `json:"clients,omitempty"`
	// Features are the cluster's finalized feature levels by name, as the
	// brokers reported them before the first run (ApiVersions v3+):
	// transaction.version says which transaction protocol the runs met
	// (KIP-890: 2 is the one with an epoch bump per transaction and
	// server-side partition verification), metadata.version which
	// metadata the controllers write. Nil in evidence from before it was
	// recorded (read as "not recorded", never as level 0).
	Features map[string]int16 `json:"features,omitempty"`
	// ReadsStored says that every read stored what it found (read events
	// in events.jsonl), so that kafkabook recheck can derive the tallies
	// again; false in evidence from before reads were stored.
	ReadsStored bool `json:"reads_stored,omitempty"`
}

// TransactionVersion is the cluster's finalized transaction.version and
// whether the evidence recorded the cluster's features. A cluster that
// finalized no transaction.version (Kafka 3.9, whose brokers do not know
// the feature) is at level 0, as Kafka reads an absent feature.
func (p Provenance) TransactionVersion() (int16, bool) {
	if p.Features == nil {
		return 0, false
	}
	return p.Features["transaction.version"], true
}

// ClientInfo is a client driver as it said of itself when it started
// (docs/driver-protocol.md, startup_complete): which library at which
// exact version, and the configuration in force by the client's own
// names, so that evidence says what a default was, not what it is
// believed to be.
type ClientInfo struct {
	Client     string            `json:"client"`                       // java, librdkafka
	Library    string            `json:"library"`                      // kafka-clients, confluent-kafka
	Version    string            `json:"version"`                      // the library's exact version
	Librdkafka string            `json:"librdkafka_version,omitempty"` // rd_kafka_version_str
	Runtime    string            `json:"runtime,omitempty"`            // java 17.0.2, python 3.11.7
	Config     map[string]string `json:"config"`                       // the configuration in force
	// SetByKafkabook names the entries of Config that kafkabook set on
	// the client itself, neither the runbook nor the library's defaults
	// deciding them (a member's group timing, a transform's transaction
	// timeout). Added
	// in schema version 4; nil in evidence from before.
	SetByKafkabook []string `json:"set_by_kafkabook,omitempty"`
}

// Run is one pass through the whole runbook. All times inside a run are
// absolute; the report shows them relative to Start.
type Run struct {
	Number       int           `json:"number"` // 1-based
	Start        time.Time     `json:"start"`
	End          time.Time     `json:"end"`
	Complete     bool          `json:"complete"`
	Error        string        `json:"error,omitempty"`
	Topics       []Topic       `json:"topics"`                 // ledgers, in order of first use
	Tallies      []Tally       `json:"tallies"`                // one per `read` step, in order: snapshots
	Final        []Tally       `json:"final"`                  // the final read on the healed cluster, one per topic: the run's verdict on every message
	Expectations []Expectation `json:"expectations"`           // one per `expect` step, in order
	Faults       []Fault       `json:"faults"`                 // fault injections, in order
	ISR          []ISRSample   `json:"isr"`                    // change points of every partition's leader and ISR (see Sampling)
	ISRSampling  *Sampling     `json:"isr_sampling,omitempty"` // how finely ISR was sampled; nil while ISR holds every sample taken
	Logs         []LogLine     `json:"logs"`                   // notable broker log lines
	Steps        []StepOutput  `json:"steps"`                  // what each step printed
	Consumers    []Consumer    `json:"consumers,omitempty"`    // consumer groups, in order of their consume steps
	// Transactions of transactional produce steps, in the order they ended.
	Transactions []Transaction `json:"transactions,omitempty"`
	// Reads are what every read found, record by record, in order: the
	// input of the tallies, which Recheck derives again. They are kept
	// in events.jsonl only (results.json holds the verdicts).
	Reads []ReadEvent `json:"-"`
}

// Topic is the produce ledger of one topic in one run. The ledger is held
// in one of two forms, and readers go through Len, All and Ledger's column
// accessors, which see both: Ledger, the compact columns kafkabook records
// and stores (schema 3), or Messages, one Message value per entry (schema 2
// files as Load and Replay hand them out, and evidence made by hand). When
// both are set, Messages come first.
type Topic struct {
	Name     string    // real topic name, with the per-run suffix
	Label    string    // name as written in the runbook
	Messages []Message // the ledger as Message values (see above)
	Ledger   *Ledger   // the ledger in columns (see above)
}

// topicJSON is a Topic in results.json and topic events: schema 3 writes
// the ledger in columns under "ledger"; "messages" (schema 2) is still read.
type topicJSON struct {
	Name     string    `json:"name"`
	Label    string    `json:"label"`
	Messages []Message `json:"messages,omitempty"`
	Ledger   *Ledger   `json:"ledger,omitempty"`
}

// MarshalJSON writes the ledger in columns, whichever form it is held in.
func (t Topic) MarshalJSON() ([]byte, error) {
	j := topicJSON{Name: t.Name, Label: t.Label, Ledger: t.Ledger}
	if len(t.Messages) > 0 || t.Ledger == nil {
		j.Ledger = t.Compact()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads either form. An error names the topic.
func (t *Topic) UnmarshalJSON(data []byte) error {
	var raw struct {
		Name     string          `json:"name"`
		Label    string          `json:"label"`
		Messages []Message       `json:"messages,omitempty"`
		Ledger   json.RawMessage `json:"ledger,omitempty"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	j := topicJSON{Name: raw.Name, Label: raw.Label, Messages: raw.Messages}
	if len(raw.Ledger) > 0 && string(raw.Ledger) != "null" {
		j.Ledger = &Ledger{}
		if err := j.Ledger.UnmarshalJSON(raw.Ledger); err != nil {
			return fmt.Errorf("topic %q: %w", raw.Name, err)
		}
	}
	*t = Topic(j)
	if t.Messages == nil {
		t.Messages = []Message{}
	}
	return nil
}

// Len is the number of ledger entries.
func (t Topic) Len() int { return len(t.Messages) + t.Ledger.Len() }

// All yields every ledger entry as a Message, in order.
func (t Topic) All() iter.Seq2[int, Message] {
	return func(yield func(int, Message) bool) {
		for i, m := range t.Messages {
			if !yield(i, m) {
				return
			}
		}
		for i := 0; i < t.Ledger.Len(); i++ {
			if !yield(len(t.Messages)+i, t.Ledger.Message(i)) {
				return
			}
		}
	}
}

// Compact returns the whole ledger in columns: Ledger itself when there
// are no Messages, else a new Ledger holding both.
func (t Topic) Compact() *Ledger {
	if len(t.Messages) == 0 && t.Ledger != nil {
		return t.Ledger
	}
	l := &Ledger{}
	l.Grow(t.Len())
	for _, m := range t.Messages {
		l.AddMessage(m)
	}
	if t.Ledger != nil {
		l.AddLedger(t.Ledger)
	}
	return l
}

// Expanded returns t with its ledger as Messages only.
func (t Topic) Expanded() Topic {
	if t.Ledger.Len() == 0 {
		t.Ledger = nil
		if t.Messages == nil {
			t.Messages = []Message{}
		}
		return t
	}
	msgs := make([]Message, 0, t.Len())
	for _, m := range t.All() {
		msgs = append(msgs, m)
	}
	t.Messages, t.Ledger = msgs, nil
	return t
}

// Status is the outcome of one send, as the producer saw it.
type Status string

const (
	// StatusOK: acknowledged, with its partition and offset (acks=0 sends
	// are ok without an offset: the broker never answers them).
	StatusOK Status = "ok"
	// StatusFailed: a definite error; the broker refused the record (e.g.
	// NOT_ENOUGH_REPLICAS) or the client gave up on it before sending.
	StatusFailed Status = "failed"
	// StatusUnknown: no definite answer (delivery timeout, connection lost,
	// the run ended first). It may or may not be in the log.
	StatusUnknown Status = "unknown"
)

// Message is one produced record: m-001, m-002, ...
type Message struct {
	ID          string    `json:"id"`   // "m-001"
	Acks        string    `json:"acks"` // "0", "1" or "all"
	Idempotent  bool      `json:"idempotent,omitempty"`
	Intended    time.Time `json:"intended"`        // when it was meant to be sent; latency counts from here
	Acked       time.Time `json:"acked,omitempty"` // when the outcome arrived (zero while unknown for lack of an answer)
	Status      Status    `json:"status"`
	Error       string    `json:"error,omitempty"` // the error's text, Kafka's name first: "NOT_ENOUGH_REPLICAS: ..."
	Partition   int32     `json:"partition"`
	Offset      int64     `json:"offset"`       // -1 when not acknowledged
	LeaderEpoch int32     `json:"leader_epoch"` // -1 when unknown
}

// Tally is what one read of a topic found, each message of the ledger
// classified (see Classify). A `read` step's tally is a snapshot; the
// run's final tally comes from a read on a healed cluster after a sentinel
// record was appended to every partition, so that nothing acknowledged can
// still be merely unseen. Id lists are sorted by message number.
type Tally struct {
	Topic          string          `json:"topic"` // real topic name
	Label          string          `json:"label"` // name in the runbook
	At             time.Time       `json:"at"`
	Final          bool            `json:"final,omitempty"` // the run's final read
	Pos            string          `json:"pos,omitempty"`   // the read step's file:line:col; "" for the final read
	Via            string          `json:"via,omitempty"`   // node read through
	Settled        bool            `json:"settled"`         // the high watermarks stood still before the read
	HighWatermarks map[int32]int64 `json:"high_watermarks"`
	Read           int             `json:"read"` // records read, sentinels included

	Acked   int `json:"acked"`   // ledger entries with status ok
	Failed  int `json:"failed"`  // ledger entries with status failed
	Unknown int `json:"unknown"` // ledger entries with status unknown
	Present int `json:"present"` // acknowledged and found

	Lost           []Loss          `json:"lost"`            // acknowledged, and provably gone
	Unseen         []string        `json:"unseen"`          // acknowledged at or above the high watermark read: not visible yet
	Duplicates     []Duplicate     `json:"duplicates"`      // found at more than one offset
	Inconsistent   []Inconsistency `json:"inconsistent"`    // one offset holding different ids in two reads of the run
	UnknownPresent []string        `json:"unknown_present"` // outcome unknown, found in the log
	FailedPresent  []string        `json:"failed_present"`  // reported failed, found in the log
	Foreign        int             `json:"foreign"`         // records that are neither ledger entries nor sentinels

	// Isolation is the read's isolation level when it is read_committed;
	// "" (read_uncommitted) otherwise.
	Isolation Isolation `json:"isolation,omitempty"`
	// Transactions checks the read against the topic's transactions (see
	// CheckTransactions): absent when no transactional producer wrote to
	// it; the final read has one per isolation level.
	Transactions []TxnCheck `json:"transactions,omitempty"`
}

// Loss is the proof that an acknowledged message is gone: the read reached
// a high watermark above the offset it was acknowledged at, and found
// another record there (Found) or none at all.
type Loss struct {
	ID            string `json:"id"`
	Partition     int32  `json:"partition"`
	Offset        int64  `json:"offset"`         // acknowledged at; -1 for acks=0
	HighWatermark int64  `json:"high_watermark"` // of the read, above Offset
	Found         string `json:"found,omitempty"`
}

// Duplicate is a message found at more than one offset.
type Duplicate struct {
	ID      string  `json:"id"`
	Offsets []int64 `json:"offsets"`
}

// Inconsistency is an offset that two reads of one run saw holding
// different records: the log was rewritten under the reader (truncation
// after an unclean leader change).
type Inconsistency struct {
	Partition int32    `json:"partition"`
	Offset    int64    `json:"offset"`
	IDs       []string `json:"ids"` // in the order the reads saw them
}

// Expectation is the outcome of one `expect` step.
type Expectation struct {
	Pos    string `json:"pos"`    // file:line:col
	Expr   string `json:"expr"`   // as written, e.g. "lost(acks1) > 0"
	Actual string `json:"actual"` // the left side's value, e.g. "10" or "29.3s"
	Held   bool   `json:"held"`
	// Undecided marks an expectation with a confidence (runs_lost(t) <
	// 5% at 95%) whose bound over the runs so far does not decide it
	// either way: more runs would. Held is false then; the run is not
	// failed by it (Run.Held), and run --until-decided runs on.
	Undecided bool `json:"undecided,omitempty"`
}

// Fault is one injected fault. Op is kill, stop, start, pause, resume,
// isolate or rejoin.
type Fault struct {
	At    time.Time `json:"at"`
	Op    string    `json:"op"`
	Nodes []string  `json:"nodes"`
	Pos   string    `json:"pos"` // step that caused it
	// Kafka is the release a node started on, when the step chose it
	// (restart --to, roll --to): with the run's release, each node's
	// release over time.
	Kafka string `json:"kafka,omitempty"`
	// Observed is what the cluster showed of a fault, in words, when the
	// fault can say it: a disk fault ended says how many of the broker's
	// operations it refused or delayed, or that it met none.
	Observed string `json:"observed,omitempty"`
	// Unproven says that what the cluster showed does not confirm the
	// fault (a JVM still there after kill, a node still answering after
	// isolate): the run is no test of it.
	Unproven bool `json:"unproven,omitempty"`
}

// ISRSample is the leader and ISR of one partition at one moment, from fresh
// metadata.
type ISRSample struct {
	At        time.Time `json:"at"`
	Topic     string    `json:"topic"` // label
	Partition int32     `json:"partition"`
	Leader    int32     `json:"leader"` // -1 when none
	ISR       []int32   `json:"isr"`
	Replicas  []int32   `json:"replicas"`
}

// LogLine is a broker log line worth showing (Shrinking ISR, Fencing broker...).
type LogLine struct {
	At   time.Time `json:"at"`
	Node string    `json:"node"`
	Text string    `json:"text"`
}

// StepOutput is what one step printed, for the notebook view.
type StepOutput struct {
	Pos        string    `json:"pos"`   // file:line:col
	Block      int       `json:"block"` // index of the block in the runbook (prose blocks counted), 0-based
	Text       string    `json:"text"`  // the step as written
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	Output     []string  `json:"output"`
	Error      string    `json:"error,omitempty"`
	Background bool      `json:"background,omitempty"`
}

// AddClient records a client driver in the provenance unless one of the
// same library, version and configuration is there already: a runbook's
// produce steps start a driver each, mostly alike.
func (p *Provenance) AddClient(c ClientInfo) {
	for _, o := range p.Clients {
		if o.Client == c.Client && o.Version == c.Version && maps.Equal(o.Config, c.Config) {
			return
		}
	}
	p.Clients = append(p.Clients, c)
}
