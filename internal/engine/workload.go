package engine

import (
	"slices"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/results"
)

// The workload is the part of a run that drives the clients under test,
// through the drivers: it creates the run's topics, runs its producers
// (every client as a driver process, franz-go's included) and its
// consumer group and transform members, and records every result in the
// ledger, the run's history of what was sent and acknowledged. It hurts
// nothing and judges nothing: the nemesis hurts, the observation reads.
type workload struct {
	*env
	// drivers are the client drivers installed so far, shared by the
	// invocation's runs.
	drivers *drivers
	// epoch is the last leader epoch the observation sampled for a
	// partition (-1 if none yet), recorded with each result.
	epoch func(topic string, partition int32) int32

	mu         sync.Mutex
	topics     map[string]*topicState // by label
	order      []string               // labels in order of first use
	groups     map[string]*group      // consumer groups, by label
	groupOrder []string               // labels in order of their consume steps
	flushMu    sync.Mutex             // serialises flushes
}

func newWorkload(e *env, ds *drivers, epoch func(string, int32) int32) *workload {
	w := &workload{env: e, drivers: ds, epoch: epoch, topics: map[string]*topicState{}, groups: map[string]*group{}}
	e.coordinator = w.coordinatorNode
	return w
}

// topicState is a topic of this run: the results of its sends not yet
// written to the event stream. The ledger itself lives once, in the event
// writer, which folds every batch it writes.
type topicState struct {
	label, name string
	mu          sync.Mutex
	pending     *results.Ledger  // results since the last batch
	count       int              // results recorded, batched or not
	txns        txnLog           // transactions of transactional producers (produce.go)
	producer    *driver.Producer // the driver process producing to it now (pause producer), nil if none
}

// add records one produce result: the hot path of a producer, an append to
// a few columns under the topic's lock; the flusher writes it out.
func (t *topicState) add(res kafka.Result, acks results.Acks, idempotent bool, epoch int32) {
	t.mu.Lock()
	if t.pending == nil {
		t.pending = &results.Ledger{}
	}
	t.pending.Add(int64(res.Num), acks, idempotent, res.Intended, res.Done, res.Status, res.Err, res.Partition, res.Offset, epoch)
	t.count++
	t.mu.Unlock()
}

// topic returns the ledger of a label, creating it.
func (w *workload) topic(label string) *topicState {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.topics[label]
	if t == nil {
		t = &topicState{label: label, name: w.realName(label)}
		w.topics[label] = t
		w.order = append(w.order, label)
		w.ev.Emit(results.KindTopic, w.num, results.Topic{Name: t.name, Label: label})
	}
	return t
}

// flushEvery is how often the results of running producers are written to
// events.jsonl, one messages event per topic: the stream's promise of at
// most 250 ms between a result and its record.
const flushEvery = 250 * time.Millisecond

// startFlusher writes the pending results of every topic every flushEvery
// until the returned function is called, which writes the last ones.
func (w *workload) startFlusher() (stop func()) {
	stopTicks := poll.Every(flushEvery, w.flush)
	return func() {
		stopTicks()
		w.flush()
	}
}

// flush writes every topic's pending results as one messages event each,
// and folds them into the ledger the event writer keeps. Flushes are
// serialised, so a topic's batches stay in order.
func (w *workload) flush() {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	topics := make([]*topicState, 0, len(w.order))
	for _, label := range w.order {
		topics = append(topics, w.topics[label])
	}
	w.mu.Unlock()
	for _, t := range topics {
		t.mu.Lock()
		batch := t.pending
		t.pending = nil
		t.mu.Unlock()
		if batch.Len() > 0 {
			w.ev.Emit(results.KindMessages, w.num, results.MessagesEvent{Topic: t.name, Label: t.label, Ledger: batch})
		}
		w.flushTxns(t) // after the messages event: a transaction follows its records
	}
	w.flushGroups()
}

// reserve makes room in a topic's ledger for n more results.
func (w *workload) reserve(t *topicState, n int) {
	w.ev.Reserve(w.num, t.name, t.label, n)
}

// ledger is a topic's ledger so far, every result recorded until now
// included: a snapshot that later results do not change.
func (w *workload) ledger(label string) results.Topic {
	t := w.topic(label)
	w.flush()
	tp := w.ev.Ledger(w.num, t.name)
	tp.Label = label
	return tp
}

// recorded is how many results a topic has.
func (t *topicState) recorded() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.count
}

// realTopics lists the cluster names of every topic used so far.
func (w *workload) realTopics() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, t := range w.topics {
		out = append(out, t.name)
	}
	slices.Sort(out)
	return out
}

// producedTo lists the labels of the topics the run produced to, in order
// of first use.
func (w *workload) producedTo() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, label := range w.order {
		if w.topics[label].recorded() > 0 {
			out = append(out, label)
		}
	}
	return out
}

// transactions are the transactions of a topic's transactional producers.
func (w *workload) transactions(label string) []results.Transaction {
	return w.topic(label).transactions()
}
