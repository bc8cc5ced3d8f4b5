package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ProduceSpec is one `produce` step.
type ProduceSpec struct {
	Topic      string
	Acks       string // "0", "1" or "all"
	From       int    // first message number
	Count      int
	Idempotent bool
	Timeout    time.Duration // delivery timeout per message
}

// MessageID is the id of message number n: m-001.
func MessageID(n int) string { return fmt.Sprintf("m-%03d", n) }

// Produce sends messages m-From .. m-(From+Count-1) and calls onResult for
// each as its result arrives (from several goroutines, never at once).
// Every message is meant to be sent when Produce is called, so latency
// counts from then: a message held back by a stuck predecessor is charged
// for the wait (no coordinated omission). Produce returns when every
// message has a result; ctx ending early marks the rest unknown.
func Produce(ctx context.Context, seeds []string, spec ProduceSpec, onResult func(results.Message)) error {
	opts := append(baseOpts(seeds),
		kgo.DefaultProduceTopic(spec.Topic),
		kgo.ProducerLinger(0),
		// A topic created a moment ago may not yet be in the metadata of
		// a broker that was just restarted; keep asking for ~5s.
		kgo.UnknownTopicRetries(50),
		kgo.RecordDeliveryTimeout(spec.Timeout),
		kgo.ProduceRequestTimeout(min(spec.Timeout, 10*time.Second)),
	)
	switch spec.Acks {
	case "0":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	case "all":
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	default:
		return fmt.Errorf("acks %q: want 0, 1 or all", spec.Acks)
	}
	if !spec.Idempotent && spec.Acks != "0" {
		opts = append(opts, kgo.DisableIdempotentWrite())
	}
	if spec.Idempotent && spec.Acks != "all" {
		return errors.New("--idempotent needs --acks all")
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()

	intended := time.Now()
	done := make(chan results.Message, spec.Count)
	for i := 0; i < spec.Count; i++ {
		id := MessageID(spec.From + i)
		rec := &kgo.Record{Value: []byte(id)}
		cl.Produce(ctx, rec, func(r *kgo.Record, err error) {
			done <- ledgerEntry(id, spec, intended, time.Now(), r, err, ctx)
		})
	}
	for i := 0; i < spec.Count; i++ {
		onResult(<-done)
	}
	return nil
}

// ledgerEntry turns one produce result into a ledger message: ok with its
// offset; failed when the broker gave a definite, non-retriable answer or
// the client refused the record before sending it; unknown when no definite
// answer came (delivery timeout, connection lost, the run ended), since
// such a record may or may not be in the log.
func ledgerEntry(id string, spec ProduceSpec, intended, at time.Time, r *kgo.Record, err error, ctx context.Context) results.Message {
	m := results.Message{
		ID: id, Acks: spec.Acks, Idempotent: spec.Idempotent, Intended: intended, Acked: at,
		Status: results.StatusOK, Partition: r.Partition, Offset: r.Offset, LeaderEpoch: -1,
	}
	if err == nil {
		if spec.Acks == "0" {
			m.Offset = -1 // no answer, no offset
		}
		return m
	}
	m.Offset = -1
	m.Error = errText(err)
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
	default:
		// Timeouts, retriable errors we gave up on, lost connections and
		// cancellation: the record may have been written.
		m.Status = results.StatusUnknown
		if ctx.Err() != nil {
			m.Acked = time.Time{}
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
