package kafka_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestProduceRefusesWhatFranzGoCannotDo: settings franz-go cannot express
// are errors before anything is sent, not silently different producers.
func TestProduceRefusesWhatFranzGoCannotDo(t *testing.T) {
	for _, c := range []struct {
		spec kafka.ProduceSpec
		want string
	}{
		{kafka.ProduceSpec{Properties: map[string]string{"acks": "all", "enable.idempotence": "true", "max.in.flight.requests.per.connection": "1"}}, "franz-go keeps up to 5"},
		{kafka.ProduceSpec{Properties: map[string]string{"acks": "all", "enable.idempotence": "true", "max.in.flight.requests.per.connection": "10"}}, "franz-go keeps up to 5"},
		{kafka.ProduceSpec{Properties: map[string]string{"acks": "all", "max.in.flight.requests.per.connection": "-1"}}, "want 1 or more"},
		{kafka.ProduceSpec{Properties: map[string]string{"acks": "all", "retries": "-1"}}, "want 0 or more"},
		{kafka.ProduceSpec{Key: "p", Keys: 3, Properties: map[string]string{"acks": "all"}}, "not both"},
	} {
		_, err := kafka.Produce(context.Background(), kafka.Plain("127.0.0.1:1"), c.spec, func(kafka.Result) {
			t.Errorf("%+v: a message was sent", c.spec)
		})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Produce(%+v) = %v, want an error saying %q", c.spec, err, c.want)
		}
	}
}

// TestProduceSettings checks the producer settings of the second article
// on a real cluster, reading back with a client of its own:
// --key and --event-id reach the log; --retries N fails a message that is
// refused with NOT_ENOUGH_REPLICAS on every try after N retries, with or
// without idempotence, while without a limit the producer retries until
// the delivery timeout.
func TestProduceSettings(t *testing.T) {
	b, st := testcluster.Start(t, 3, map[string]string{"replica.lag.time.max.ms": "3000"})
	ctx := context.Background()
	seeds := st.Bootstrap()
	admin, err := kafka.Dial(kafka.Plain(seeds...))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()

	t.Run("key and event id", func(t *testing.T) {
		if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: "keyed", Partitions: 3, ReplicationFactor: 1}); err != nil {
			t.Fatal(err)
		}
		got := produce(t, seeds, kafka.ProduceSpec{Topic: "keyed", From: 1, Count: 6, Key: "product-1", EventID: "like-42", Properties: map[string]string{"acks": "all", "delivery.timeout.ms": "30000"}})
		for _, r := range got {
			if r.Status != results.StatusOK {
				t.Fatalf("m-%03d: %s %s", r.Num, r.Status, r.Err)
			}
		}
		cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics("keyed"),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		partitions := map[int32]bool{}
		for n := 0; n < 6; {
			fs := cl.PollFetches(rctx)
			if err := rctx.Err(); err != nil {
				t.Fatalf("read %d of 6 records: %v", n, err)
			}
			fs.EachRecord(func(r *kgo.Record) {
				n++
				partitions[r.Partition] = true
				var event []string
				for _, h := range r.Headers {
					if h.Key == kafka.EventHeader {
						event = append(event, string(h.Value))
					}
				}
				if string(r.Key) != "product-1" || len(event) != 1 || event[0] != "like-42" {
					t.Errorf("%s at %d/%d: key %q, event-id headers %q; want product-1 and [like-42]",
						kafka.IDOf(r.Value), r.Partition, r.Offset, r.Key, event)
				}
			})
		}
		if len(partitions) != 1 {
			t.Errorf("one key went to partitions %v, want one", partitions)
		}
	})

	t.Run("retries", func(t *testing.T) {
		// Two replicas, one of them stopped, and min.insync.replicas=2
		// (Kafka caps it at the replication factor): every acks=all try
		// is refused with NOT_ENOUGH_REPLICAS, a retriable error.
		if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: "refused", Assignment: [][]int32{{1, 2}},
			Configs: map[string]string{"min.insync.replicas": "2"}}); err != nil {
			t.Fatal(err)
		}
		if err := b.Apply(ctx, cluster.Stop, []string{"k2"}, t.Logf); err != nil {
			t.Fatal(err)
		}
		err := poll.Until(ctx, 100*time.Millisecond, 60*time.Second, nil, func(ctx context.Context) (bool, string, error) {
			ps, err := admin.Partitions(ctx, "refused")
			return err == nil && len(ps) == 1 && len(ps[0].ISR) == 1, fmt.Sprint(ps, err), nil
		})
		if err != nil {
			t.Fatalf("ISR of one after stop k2: %v", err)
		}
		// The four sends wait on the broker's refusals and on their
		// clients' timers, not on each other: they run side by side.
		specs := []map[string]string{
			{"acks": "all", "delivery.timeout.ms": "60000", "retries": "2", "enable.idempotence": "false"},
			{"acks": "all", "delivery.timeout.ms": "60000", "retries": "2", "enable.idempotence": "true"},
			{"acks": "all", "delivery.timeout.ms": "4000", "enable.idempotence": "false"},
			{"acks": "all", "delivery.timeout.ms": "4000", "enable.idempotence": "true"},
		}
		rs := make([]kafka.Result, len(specs))
		var wg sync.WaitGroup
		for i, props := range specs {
			wg.Go(func() {
				rs[i] = produce(t, seeds, kafka.ProduceSpec{Topic: "refused", From: i + 1, Count: 1, Properties: props})[0]
			})
		}
		wg.Wait()
		for i, idem := range []bool{false, true} {
			r := rs[i]
			t.Logf("idempotent %v, retries 2: %s after %v: %s", idem, r.Status, r.Done.Sub(r.Intended).Round(time.Millisecond), r.Err)
			if r.Status != results.StatusFailed || !strings.Contains(r.Err, "NOT_ENOUGH_REPLICAS") {
				t.Errorf("idempotent %v, retries 2: %s %q, want failed with NOT_ENOUGH_REPLICAS", idem, r.Status, r.Err)
			}
			if took := r.Done.Sub(r.Intended); took > 20*time.Second {
				t.Errorf("idempotent %v, retries 2: failed after %v, long after three tries", idem, took)
			}
		}
		r := rs[2]
		t.Logf("retries max, delivery timeout 4s: %s after %v: %s", r.Status, r.Done.Sub(r.Intended).Round(time.Millisecond), r.Err)
		if r.Status == results.StatusOK {
			t.Fatalf("retries max: acknowledged at offset %d by a partition short of replicas", r.Offset)
		}
		// franz-go starts the delivery timeout when it buffers the record,
		// a moment around the intended send time: allow that moment.
		if took := r.Done.Sub(r.Intended); took < 4*time.Second-50*time.Millisecond {
			t.Errorf("retries max, delivery timeout 4s: gave up after %v (%s %s)", took, r.Status, r.Err)
		}
		if r.Status != results.StatusUnknown {
			t.Errorf("retries max, delivery timeout 4s, no idempotence: %s, want unknown: an earlier try may have been written", r.Status)
		}
		// With idempotence franz-go gives a record up only when it knows
		// it was not written: then failed is the truth.
		r = rs[3]
		t.Logf("idempotent, retries max, delivery timeout 4s: %s after %v: %s", r.Status, r.Done.Sub(r.Intended).Round(time.Millisecond), r.Err)
		if r.Status != results.StatusFailed {
			t.Errorf("idempotent, delivery timeout 4s: %s %q, want failed", r.Status, r.Err)
		}
	})
}

// produce runs one Produce and returns its results by message number (a
// zero Result for a message it could not send); several may run side by
// side.
func produce(t *testing.T, seeds []string, spec kafka.ProduceSpec) []kafka.Result {
	t.Helper()
	var mu sync.Mutex
	got := make([]kafka.Result, spec.Count)
	_, err := kafka.Produce(context.Background(), kafka.Plain(seeds...), spec, func(r kafka.Result) {
		mu.Lock()
		got[r.Num-spec.From] = r
		mu.Unlock()
	})
	if err != nil {
		t.Error(err)
	}
	return got
}
