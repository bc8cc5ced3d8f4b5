package engine

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/kafka"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// produce: produce TOPIC --acks 0|1|all [--from N] [--count N] [--rate N/s]
// [--for DUR] [--size BYTES] [--keys N] [--idempotent] [--via NODE] [--timeout DUR]
// It prints one line per result as it arrives: "  0.1s m-011 ok offset=10".
func produce(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	t := r.topic(s.Args[0].Text)
	seeds, _, err := r.seeds(ctx, s)
	if err != nil {
		return err
	}
	spec := produceSpec(t.name, s)
	var mu sync.Mutex
	var ok, failed int
	stats, err := kafka.Produce(ctx, seeds, spec, func(res kafka.Result) {
		mu.Lock()
		defer mu.Unlock()
		m := results.Message{
			ID: kafka.MessageID(res.Num), Acks: spec.Acks, Idempotent: spec.Idempotent,
			Intended: res.Intended, Acked: res.Done, Status: res.Status, Error: res.Err,
			Partition: res.Partition, Offset: res.Offset, LeaderEpoch: -1,
		}
		if m.Status == results.StatusOK {
			m.LeaderEpoch = r.sampler.epoch(t.name, m.Partition)
			ok++
		} else {
			failed++
		}
		r.record(t, m)
		log.line("%s", resultLine(m))
	})
	if err != nil {
		return err
	}
	log.line("acked %d of %d", ok, spec.Count)
	if stats.Behind {
		log.line("could not keep up with %s: a message went out %s after its scheduled time (latency counts from the schedule)",
			s.String("rate"), stats.MaxLag.Round(time.Millisecond))
	}
	return nil
}

// produceSpec is the producer a produce step asks for.
func produceSpec(topic string, s runbook.Step) kafka.ProduceSpec {
	spec := kafka.ProduceSpec{
		Topic:      topic,
		Acks:       s.String("acks"),
		From:       s.Int("from"),
		Count:      s.Int("count"),
		Idempotent: s.Bool("idempotent"),
		Timeout:    s.Duration("timeout"),
		Rate:       s.Rate("rate"),
		Size:       s.Int("size"),
		Keys:       s.Int("keys"),
	}
	if spec.Rate > 0 && s.Has("for") {
		spec.Count = int(math.Round(spec.Rate * s.Duration("for").Seconds()))
	}
	return spec
}

// resultLine is one produce result as the console shows it.
func resultLine(m results.Message) string {
	lat := "   -"
	if d, ok := results.MessageLatency(m); ok {
		lat = fmt.Sprintf("%5.1fs", d.Seconds())
	}
	switch m.Status {
	case results.StatusOK:
		return fmt.Sprintf("%s %s ok offset=%d", lat, m.ID, m.Offset)
	case results.StatusUnknown:
		if m.Error == "" {
			m.Error = "no answer before the run ended"
		}
		return fmt.Sprintf("%s %s unknown (may be in the log): %s", lat, m.ID, m.Error)
	}
	return fmt.Sprintf("%s %s %s %s", lat, m.ID, m.Status, m.Error)
}
