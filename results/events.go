package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// EventsFileName is the name of the event stream inside a run directory.
const EventsFileName = "events.jsonl"

// Event kinds of events.jsonl. Each names the type its data holds.
const (
	KindStart    = "start"     // StartEvent: title, runbook, provenance
	KindRunStart = "run_start" // RunStartEvent
	KindTopic    = "topic"     // Topic: declares a topic (messages, if any, are appended)
	KindMessage  = "message"   // MessageEvent: one ledger entry (schema 2; still read and written)
	KindMessages = "messages"  // MessagesEvent: a batch of ledger entries in columns (schema 3)
	KindStep     = "step"      // StepOutput
	KindFault    = "fault"     // Fault
	KindISR      = "isr"       // ISRSample: one partition in one sample; a sample's partitions share At
	KindSampling = "sampling"  // SamplingEvent: the samplers' cadences, before their first sample
	KindLog      = "log"       // LogLine
	KindTally    = "tally"     // Tally
	KindExpect   = "expect"    // Expectation
	KindRunEnd   = "run_end"   // RunEndEvent

	KindConsumer       = "consumer"        // Consumer: declares a group (members, events and offsets come in their own events)
	KindMember         = "member"          // MemberEvent: a member started, or ended
	KindConsumerEvents = "consumer_events" // ConsumerEventsEvent: what members did, in order
	KindOffsets        = "offsets"         // OffsetsEvent: committed offsets from the admin API
	KindConsumerTally  = "consumer_tally"  // ConsumerTallyEvent
	KindEnd            = "end"             // EndEvent
	KindClient         = "client"          // ClientInfo: a client driver started (schema 4)
	KindFeatures       = "features"        // FeaturesEvent: the cluster's finalized features, once per file
	KindRead           = "read"            // ReadEvent: one read of a topic, record by record, before its tally
)

// runScoped tells which kinds belong to a run (and so need a run number);
// start and end belong to the whole file.
var runScoped = map[string]bool{
	KindRunStart: true, KindTopic: true, KindMessage: true, KindMessages: true, KindStep: true,
	KindFault: true, KindISR: true, KindSampling: true, KindLog: true, KindTally: true,
	KindExpect: true, KindRunEnd: true,
	KindConsumer: true, KindMember: true, KindConsumerEvents: true, KindOffsets: true, KindConsumerTally: true,
	KindTransactions: true, KindClient: true, KindFeatures: true, KindRead: true, KindGroupInput: true,
}

// syncedKinds are fsync'd as soon as they are written: they are rare and
// mark the structure of the evidence. Frequent kinds (message, isr, log,
// step) are written with one write call each, which survives a crash of the
// process, and synced at most every syncEvery.
var syncedKinds = map[string]bool{
	KindStart: true, KindRunStart: true, KindFault: true, KindTally: true,
	KindExpect: true, KindRunEnd: true, KindEnd: true,
	KindMember: true, KindConsumerTally: true, KindFeatures: true,
}

const syncEvery = 250 * time.Millisecond

// Event is one line of events.jsonl.
type Event struct {
	Kind string          `json:"kind"`
	Run  int             `json:"run,omitempty"` // 1-based; 0 for start and end
	Time time.Time       `json:"time"`          // when the line was written
	Data json.RawMessage `json:"data"`
}

// StartEvent is the data of a start event: what is known before the first run.
type StartEvent struct {
	Schema     int        `json:"schema"`
	Title      string     `json:"title"`
	Runbook    Runbook    `json:"runbook"`
	Provenance Provenance `json:"provenance"`
}

// RunStartEvent is the data of a run_start event.
type RunStartEvent struct {
	Start time.Time `json:"start"`
}

// SamplingEvent is the data of a sampling event: how often the run's
// samplers ask, so that results.json can say how fine its change points
// are. Every sample is written to events.jsonl; results.json keeps the
// change points (see Sampling).
type SamplingEvent struct {
	ISREveryMS     int `json:"isr_every_ms"`     // leader/ISR of every topic
	OffsetsEveryMS int `json:"offsets_every_ms"` // committed offsets of every group with a running member
}

// RunEndEvent is the data of a run_end event.
type RunEndEvent struct {
	End      time.Time `json:"end"`
	Complete bool      `json:"complete"`
	Error    string    `json:"error,omitempty"`
}

// MessageEvent is the data of a message event: one ledger entry and the
// topic it was produced to. A message event whose id matches an earlier
// entry of the same topic and run with status unknown replaces that entry, so
// the engine may record a send first and its result later.
type MessageEvent struct {
	Topic string `json:"topic"` // real topic name
	Label string `json:"label"` // name in the runbook
	Message
}

// MessagesEvent is the data of a messages event: ledger entries of one
// topic, appended to its ledger in order. The engine writes one per topic
// at most every 250 ms while messages come in, so events.jsonl has no line
// per message and a crash loses at most the last quarter second of
// results, which the run could not have shown anyway.
type MessagesEvent struct {
	Topic  string  `json:"topic"` // real topic name
	Label  string  `json:"label"` // name in the runbook
	Ledger *Ledger `json:"ledger"`
}

// MemberEvent is the data of a member event: a member as it started, or
// as it ended (the same N again, with End and How set).
type MemberEvent struct {
	Group string `json:"group"` // real group name
	Member
}

// ConsumerEventsEvent is the data of a consumer_events event: what the
// members of one group did since the last one, in order.
type ConsumerEventsEvent struct {
	Group  string          `json:"group"`
	Events []ConsumerEvent `json:"events"`
}

// OffsetsEvent is the data of an offsets event: a group's committed
// offsets at one moment.
type OffsetsEvent struct {
	Group   string         `json:"group"`
	Samples []OffsetSample `json:"samples"`
}

// ConsumerTallyEvent is the data of a consumer_tally event.
type ConsumerTallyEvent struct {
	Group string        `json:"group"`
	Tally ConsumerTally `json:"tally"`
}

// EndEvent is the data of an end event, the last line of a finished file.
type EndEvent struct {
	End      time.Time `json:"end"`
	Complete bool      `json:"complete"`
	Error    string    `json:"error,omitempty"`
}

// EventWriter appends events to events.jsonl while a runbook runs, one JSON
// object per line, each written with a single write call, so that a crash
// leaves every line written so far readable by Replay. It also folds the
// events into a Results, so the engine need not keep a second copy. Safe for
// concurrent use.
type EventWriter struct {
	mu       sync.Mutex
	f        *os.File
	fold     *folder
	lastSync time.Time
	now      func() time.Time
	err      error // first error of Emit; later Emits write nothing
}

// CreateEvents creates path, which must not exist, and returns a writer
// for it.
func CreateEvents(path string) (*EventWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	fold := newFolder()
	fold.dropReads = true // the engine has each read's records already; only a replay needs them back
	return &EventWriter{f: f, fold: fold, now: time.Now}, nil
}

// Emit appends one event. kind is one of the Kind constants, run the 1-based
// run number for run-scoped kinds (0 for start and end), v the data of the
// type the kind names (a value or a pointer). Emit returns nothing: the
// writer keeps its first error, after which it writes no more; Err reports
// it while the run goes on and Close returns it, so no error is dropped.
func (w *EventWriter) Emit(kind string, run int, v any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	w.err = w.emit(kind, run, v)
}

// Err returns the first error of Emit, or nil.
func (w *EventWriter) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *EventWriter) emit(kind string, run int, v any) error {
	scoped, known := runScoped[kind]
	if !known && kind != KindStart && kind != KindEnd {
		return fmt.Errorf("results: emit: unknown event kind %q", kind)
	}
	if scoped && run < 1 {
		return fmt.Errorf("results: emit %s: run number %d, want 1 or more", kind, run)
	}
	if !scoped {
		run = 0
	}
	if kind == KindStart {
		if s, ok := v.(StartEvent); ok && s.Schema == 0 {
			s.Schema = SchemaVersion
			v = s
		} else if s, ok := v.(*StartEvent); ok && s.Schema == 0 {
			c := *s
			c.Schema = SchemaVersion
			v = c
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("results: emit %s: %w", kind, err)
	}
	ev := Event{Kind: kind, Run: run, Time: w.now().UTC(), Data: data}
	line, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("results: emit %s: %w", kind, err)
	}
	line = append(line, '\n')
	if _, err := w.f.Write(line); err != nil {
		return fmt.Errorf("results: write %s: %w", w.f.Name(), err)
	}
	if syncedKinds[kind] || ev.Time.Sub(w.lastSync) >= syncEvery {
		if err := w.f.Sync(); err != nil {
			return fmt.Errorf("results: sync %s: %w", w.f.Name(), err)
		}
		w.lastSync = ev.Time
	}
	if me, ok := v.(MessagesEvent); ok {
		return w.fold.addLedger(run, me) // as apply would after decoding it again
	}
	if me, ok := v.(*MessagesEvent); ok {
		return w.fold.addLedger(run, *me)
	}
	return w.fold.apply(ev)
}

// Ledger returns a snapshot of the ledger of a topic of run n as far as it
// was emitted (see Ledger.Snapshot), and the number of its entries.
func (w *EventWriter) Ledger(n int, topic string) Topic {
	w.mu.Lock()
	defer w.mu.Unlock()
	r, ok := w.fold.runs[n]
	if !ok {
		return Topic{Name: topic, Ledger: &Ledger{}}
	}
	for _, t := range r.Topics {
		if t.Name == topic {
			return Topic{Name: t.Name, Label: t.Label, Messages: t.Messages[:len(t.Messages):len(t.Messages)], Ledger: t.Ledger.Snapshot()}
		}
	}
	return Topic{Name: topic, Ledger: &Ledger{}}
}

// Run returns run n as far as it was emitted, as Replay would rebuild it
// from the file so far: the stored history that a checker judges, so that
// what a run checks while it runs and what a re-check of its file finds
// cannot differ. Ledgers are snapshots and slices are cut at their
// length; later events do not change the value. The timelines are not
// folded in (results does that when the run ends).
func (w *EventWriter) Run(n int) Run {
	w.mu.Lock()
	defer w.mu.Unlock()
	r, ok := w.fold.runs[n]
	if !ok {
		return Run{Number: n}
	}
	c := *r
	c.Topics = make([]Topic, len(r.Topics))
	for i, t := range r.Topics {
		t.Messages = t.Messages[:len(t.Messages):len(t.Messages)]
		t.Ledger = t.Ledger.Snapshot()
		c.Topics[i] = t
	}
	c.Tallies = r.Tallies[:len(r.Tallies):len(r.Tallies)]
	c.Final = r.Final[:len(r.Final):len(r.Final)]
	c.Transactions = r.Transactions[:len(r.Transactions):len(r.Transactions)]
	c.Consumers = slices.Clone(r.Consumers)
	return c
}

// Reserve makes room in the ledger of a topic of run n for n more entries,
// so that it grows once instead of doubling as batches come in.
func (w *EventWriter) Reserve(run int, topic, label string, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	tp := topicOf(w.fold.run(run), topic, label)
	if tp.Ledger == nil {
		tp.Ledger = &Ledger{}
	}
	tp.Ledger.Grow(n)
}

// Results returns the evidence emitted so far, as Replay would rebuild it
// from the file. The value is shared with the writer: use it after the last
// Emit, e.g. to Write results.json.
func (w *EventWriter) Results() *Results {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fold.results()
}

// Close syncs and closes the file. When the file is a run directory's
// events.jsonl and that run's results.json was written first and loads,
// Close then archives the stream (see ArchiveEvents); a run that stopped
// before writing results.json keeps its plain stream.
func (w *EventWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	serr := w.f.Sync()
	cerr := w.f.Close()
	if w.err != nil {
		return w.err
	}
	if serr != nil {
		return fmt.Errorf("results: sync %s: %w", w.f.Name(), serr)
	}
	if cerr != nil {
		return fmt.Errorf("results: close %s: %w", w.f.Name(), cerr)
	}
	dir := filepath.Dir(w.f.Name())
	if filepath.Base(w.f.Name()) != EventsFileName {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
		return nil // no results.json: the stream is the only evidence
	}
	return ArchiveEvents(dir)
}

// FeaturesEvent is the data of a features event: the cluster's finalized
// feature levels (Provenance.Features), asked of it once the first run has
// healed it.
type FeaturesEvent struct {
	Finalized map[string]int16 `json:"finalized"`
}
