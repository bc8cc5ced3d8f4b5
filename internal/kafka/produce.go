package kafka

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ProduceSpec is one `produce` step.
type ProduceSpec struct {
	Topic string
	From  int // first message number
	Count int
	// Properties are the runbook's producer properties by the Java
	// client's names, franz-go's defaults for the rest: read once by
	// clientconfig.ParseFranzGoProducer, which checks them as franz-go
	// would, and mapped onto kgo options (producerProperties). Every
	// option off franz-go's default that is not one of them, kafkabook
	// had to set, and the evidence names it as kafkabook's
	// (ProducerInForce).
	Properties map[string]string
	// Rate is the schedule in messages per second: message i is meant to
	// be sent i/Rate seconds after the start. 0: every message is meant
	// to be sent at the start.
	Rate float64
	Size int    // value size in bytes: the id, a blank, filler; 0: the id alone
	Keys int    // distinct keys given in turn; 0: no key
	Key  string // the key of every message; "": none (or Keys)
	// EventID is carried by every message in the EventHeader header, so
	// that a consumer sees one event sent again; "": no header, and
	// consumers take the message id for the event id.
	EventID string
}

// MessageID is the id of message number n: m-001.
func MessageID(n int) string { return results.MessageID(int64(n)) }

// Value is the record value of message number n for a value size: the id,
// then, when size leaves room, a blank and filler up to size bytes. The id
// is what the value holds up to its first blank (see IDOf).
func Value(n, size int) []byte {
	b := results.AppendMessageID(make([]byte, 0, max(size, 12)), int64(n))
	if size > len(b)+1 {
		b = append(b, ' ')
		for len(b) < size {
			b = append(b, '.')
		}
	}
	return b
}

// IDOf returns the message id a record value holds: the value up to its
// first blank.
func IDOf(value []byte) []byte {
	if i := bytes.IndexByte(value, ' '); i >= 0 {
		return value[:i]
	}
	return value
}

// Result is the outcome of one send as the producer saw it: a ledger entry
// before the engine adds what it knows (the leader epoch).
type Result struct {
	Num       int       // message number: MessageID(Num) is its id
	Intended  time.Time // when the schedule meant it to be sent
	Done      time.Time // when the outcome arrived; zero when the run ended first
	Status    results.Status
	Err       string
	Partition int32
	Offset    int64 // -1 when not acknowledged (and for acks=0)
}

// ProduceStats says how a producer kept its schedule.
type ProduceStats struct {
	Start  time.Time     // the schedule's start
	Sent   int           // messages handed to the client
	MaxLag time.Duration // largest delay between a message's scheduled time and its hand-off to the client
	// Behind is true when the producer could not keep up with its rate:
	// some message was handed to the client more than a second (or ten
	// intervals) after its scheduled time, because the client's buffer was
	// full or the machine too slow. Latency still counts from the schedule.
	Behind bool
	// Stopped says why a transactional producer stopped before sending
	// every message (a transaction that did not begin, or ended without a
	// definite answer); "" otherwise.
	Stopped string
}

// lagLimit is how far behind its schedule a rate-driven producer may hand
// a message to the client before it is said not to keep up.
func lagLimit(rate float64) time.Duration {
	return max(time.Second, time.Duration(10*float64(time.Second)/rate))
}

// Produce sends messages m-From .. m-(From+Count-1), at once or on the
// schedule of spec.Rate, and calls onResult for each as its result arrives
// (from the client's goroutines, possibly at once: onResult must be safe
// for concurrent use and cheap: it runs on the client's callback path).
// Each message's latency counts from its scheduled time, so a message held
// back by a stuck predecessor or a full buffer is charged for the wait (no
// coordinated omission). Produce returns when every message sent has a
// result; when ctx ends early, messages handed to the client get a result
// (unknown when none came) and those not yet due are not sent at all
// (ProduceStats.Sent counts the others).
func Produce(ctx context.Context, b Brokers, spec ProduceSpec, onResult func(Result)) (ProduceStats, error) {
	var stats ProduceStats
	config, cl, err := newProducer(b, spec, nil)
	if err != nil {
		return stats, err
	}
	defer cl.Close()

	pace := newPacer(spec.Rate, &stats)
	var pending sync.WaitGroup
	for i := 0; i < spec.Count; i++ {
		n := spec.From + i
		intended, ok := pace.wait(ctx, i)
		if !ok {
			break // the run is over: messages not yet due are not sent, nor recorded
		}
		pending.Add(1)
		cl.Produce(ctx, spec.record(n), func(r *kgo.Record, err error) {
			onResult(result(n, config, intended, time.Now(), r, err, ctx))
			pending.Done()
		})
		pace.sent(intended)
	}
	pending.Wait()
	return stats, nil
}

// newProducer is the client Produce and ProduceTransactional send through
// (producerOpts), with the configuration it was built from.
func newProducer(b Brokers, spec ProduceSpec, txn *TxnSpec) (clientconfig.FranzGoProducer, *kgo.Client, error) {
	config, opts, err := producerOpts(b, spec, txn)
	if err != nil {
		return config, nil, err
	}
	cl, err := kgo.NewClient(opts...)
	return config, cl, err
}

// producerOpts are the options of a franz-go producer for spec
// (transactional with txn): where the cluster is (subjectOpts), the topic
// it writes to, and the runbook's properties, read once
// (clientconfig.ParseFranzGoProducer), over franz-go's defaults (acks=all,
// idempotent writes, no delivery timeout, unlimited retries, ...):
// nothing of kafkabook's own tuning, so that the producer under test is
// the one franz-go's users run. The configuration read is returned too:
// what each result means depends on its acks and idempotence.
func producerOpts(b Brokers, spec ProduceSpec, txn *TxnSpec) (clientconfig.FranzGoProducer, []kgo.Opt, error) {
	config, errs := clientconfig.ParseFranzGoProducer(spec.Properties, txn != nil)
	if len(errs) > 0 {
		return config, nil, errs[0]
	}
	if spec.Keys > 0 && spec.Key != "" {
		return config, nil, errors.New("give every message one key or spread them over several, not both")
	}
	opts := append(subjectOpts(b), kgo.DefaultProduceTopic(spec.Topic))
	switch config.Acks {
	case results.AcksNone:
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()))
	case results.AcksLeader:
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	}
	if !config.Idempotent {
		opts = append(opts, kgo.DisableIdempotentWrite())
		if config.MaxInFlight > 0 {
			opts = append(opts, kgo.MaxProduceRequestsInflightPerBroker(config.MaxInFlight))
		}
	}
	if config.Retries != nil {
		// kgo.RecordRetries counts tries and fails a batch once they
		// exceed it; a metadata refresh that finds the partition without
		// a leader counts too. franz-go stops enforcing the limit for a
		// batch once it cannot tell whether the batch was written: after
		// REQUEST_TIMED_OUT or NOT_ENOUGH_REPLICAS_AFTER_APPEND it
		// retries until it succeeds or times out, and with idempotence,
		// also after a request that went out without an answer, and then
		// neither the limit nor the delivery timeout fails it (that could
		// leave a gap in the sequence numbers): it waits for an answer.
		opts = append(opts, kgo.RecordRetries(*config.Retries))
	}
	if config.DeliveryTimeout > 0 {
		opts = append(opts, kgo.RecordDeliveryTimeout(config.DeliveryTimeout))
	}
	if config.RequestTimeout > 0 {
		opts = append(opts, kgo.ProduceRequestTimeout(config.RequestTimeout))
	}
	for _, name := range slices.Sorted(maps.Keys(spec.Properties)) {
		if slices.Contains(clientconfig.TypedProperties, name) {
			continue // applied above, from the configuration's fields
		}
		set := producerProperties[name] // ParseFranzGoProducer refused a name without one
		opt, err := set(spec.Properties[name])
		if err != nil {
			return config, nil, fmt.Errorf("%s=%s: %w", name, spec.Properties[name], err)
		}
		opts = append(opts, opt)
	}
	if txn != nil {
		opts = append(opts, kgo.TransactionalID(txn.ID))
	}
	return config, opts, nil
}

// record is the record of message number n: its value, and its key and
// event-id header when the spec gives them.
func (spec ProduceSpec) record(n int) *kgo.Record {
	rec := &kgo.Record{Value: Value(n, spec.Size)}
	switch {
	case spec.Key != "":
		rec.Key = []byte(spec.Key)
	case spec.Keys > 0:
		rec.Key = strconv.AppendInt([]byte{'k'}, int64(n%spec.Keys), 10)
	}
	if spec.EventID != "" {
		rec.Headers = []kgo.RecordHeader{{Key: EventHeader, Value: []byte(spec.EventID)}}
	}
	return rec
}

// pacer hands messages to the client on a producer's schedule and keeps
// its ProduceStats: when each was due, and how far behind it went.
type pacer struct {
	start    time.Time
	interval float64 // nanoseconds between two scheduled sends; 0: all at once
	limit    time.Duration
	stats    *ProduceStats
}

func newPacer(rate float64, stats *ProduceStats) *pacer {
	p := &pacer{start: time.Now(), limit: lagLimit(rate), stats: stats}
	if rate > 0 {
		p.interval = float64(time.Second) / rate
	}
	stats.Start = p.start
	return p
}

// wait waits until send i is due and returns its scheduled time; false
// when ctx ended first.
func (p *pacer) wait(ctx context.Context, i int) (time.Time, bool) {
	intended := p.start
	if p.interval > 0 {
		intended = p.start.Add(time.Duration(float64(i) * p.interval))
		if wait := time.Until(intended); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
		}
	}
	return intended, ctx.Err() == nil
}

// sent counts a message handed to the client, due at intended.
func (p *pacer) sent(intended time.Time) {
	p.stats.Sent++
	if lag := time.Since(intended); lag > p.stats.MaxLag {
		p.stats.MaxLag = lag
		if p.interval > 0 && lag > p.limit {
			p.stats.Behind = true
		}
	}
}

// result turns one produce result into a ledger message: ok with its
// offset; failed when the broker gave a definite, non-retriable answer or
// the client refused the record before sending it; unknown when no definite
// answer came (delivery timeout, connection lost, the run ended), since
// such a record may or may not be in the log.
func result(n int, config clientconfig.FranzGoProducer, intended, at time.Time, r *kgo.Record, err error, ctx context.Context) Result {
	m := Result{
		Num: n, Intended: intended, Done: at,
		Status: results.StatusOK, Partition: r.Partition, Offset: r.Offset,
	}
	if err == nil {
		if config.Acks == results.AcksNone {
			m.Offset = -1 // no answer, no offset
		}
		return m
	}
	m.Offset = -1
	m.Err = errText(err)
	var ke *kerr.Error
	switch {
	case errors.As(err, &ke) && (!ke.Retriable || ke == kerr.NotEnoughReplicas):
		// The broker refused the record; NOT_ENOUGH_REPLICAS is checked
		// before the append, so the record was not written (unlike
		// NOT_ENOUGH_REPLICAS_AFTER_APPEND). If an earlier attempt of
		// the same record did get written, the read calls it failed but
		// present.
		m.Status = results.StatusFailed
	case errors.Is(err, kgo.ErrMaxBuffered):
		m.Status = results.StatusFailed
	case config.Idempotent && ctx.Err() == nil:
		// An idempotent record is failed by franz-go only when it knows
		// the record is not in the log: it was never sent, or the broker
		// answered with an error. One in flight without an answer is
		// never cancelled, by the delivery timeout or the retry limit
		// alike, since that would break the sequence numbers (kafkabook
		// does not set AllowIdempotentProduceCancellation). The final
		// read checks the claim: a failed record it finds is reported as
		// failed but present.
		m.Status = results.StatusFailed
	default:
		// Timeouts, retriable errors we gave up on, lost connections and
		// cancellation: the record may have been written.
		m.Status = results.StatusUnknown
		if ctx.Err() != nil {
			m.Done = time.Time{}
		}
	}
	return m
}

// errText is an error's text with Kafka's error name first when there is one.
func errText(err error) string {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		if s := err.Error(); s != ke.Error() {
			return ke.Message + ": " + s
		}
		return ke.Message
	}
	return err.Error()
}
