package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// A broker's wall clock, read through Kafka: a topic whose one partition
// lives on that broker alone and whose records are stamped with the time
// the leader appended them (message.timestamp.type=LogAppendTime), so a
// record's timestamp is the broker's clock and nothing the client said.

// ClockTopic is the spec of broker id's clock topic called name.
func ClockTopic(name string, id int32) TopicSpec {
	return TopicSpec{Name: name, Assignment: [][]int32{{id}}, Configs: map[string]string{"message.timestamp.type": "LogAppendTime"}}
}

// EnsureTopic creates the topic unless it exists.
func (c *Client) EnsureTopic(ctx context.Context, spec TopicSpec) error {
	names, err := c.Topics(ctx)
	if err != nil {
		return err
	}
	if slices.Contains(names, spec.Name) {
		return nil
	}
	return c.CreateTopic(ctx, spec)
}

// ClockOffset writes one record to the clock topic (ClockTopic) and reads
// it back: how far the broker's wall clock, as it stamped the record, is
// from this host's at the middle of the write, and the uncertainty of
// that, half the write's round trip.
func ClockOffset(ctx context.Context, b Brokers, topic string) (offset, within time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	opts := append(observerOpts(b), kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{}))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return 0, 0, err
	}
	defer cl.Close()
	sent := time.Now()
	r, err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("clock")}).First()
	acked := time.Now()
	if err != nil {
		return 0, 0, fmt.Errorf("writing to %s: %s", topic, errName(err))
	}
	cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{topic: {r.Partition: kgo.NewOffset().At(r.Offset)}})
	for {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return 0, 0, fmt.Errorf("reading back offset %d of %s: %w", r.Offset, topic, err)
		}
		for _, fe := range fs.Errors() {
			if !errors.Is(fe.Err, context.DeadlineExceeded) {
				return 0, 0, fmt.Errorf("reading back offset %d of %s: %s", r.Offset, topic, errName(fe.Err))
			}
		}
		for _, got := range fs.Records() {
			if got.Offset == r.Offset {
				mid := sent.Add(acked.Sub(sent) / 2)
				return got.Timestamp.Sub(mid), acked.Sub(sent)/2 + time.Millisecond, nil
			}
		}
	}
}
