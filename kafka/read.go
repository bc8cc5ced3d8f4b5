package kafka

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ReadAll reads every partition of topic from the beginning to its high
// watermark, through the brokers at seeds, and returns what it found and
// the high watermarks. It is the independent view of a topic: a fresh
// client, no consumer group.
func ReadAll(ctx context.Context, seeds []string, topic string, timeout time.Duration) ([]results.Record, map[int32]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	admCl, err := kgo.NewClient(baseOpts(seeds)...)
	if err != nil {
		return nil, nil, err
	}
	defer admCl.Close()
	ends, err := kadm.NewClient(admCl).ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, nil, fmt.Errorf("high watermark of %s: %w", topic, err)
	}
	if err := ends.Error(); err != nil {
		return nil, nil, fmt.Errorf("high watermark of %s: %w", topic, err)
	}
	hw := map[int32]int64{}
	assign := map[int32]kgo.Offset{}
	remaining := 0
	ends.Each(func(o kadm.ListedOffset) {
		hw[o.Partition] = o.Offset
		if o.Offset > 0 {
			assign[o.Partition] = kgo.NewOffset().AtStart()
			remaining++
		}
	})
	if remaining == 0 {
		return nil, hw, nil
	}
	cl, err := kgo.NewClient(append(baseOpts(seeds),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: assign}),
		kgo.FetchMaxWait(200*time.Millisecond))...)
	if err != nil {
		return nil, nil, err
	}
	defer cl.Close()
	var recs []results.Record
	done := map[int32]bool{}
	for remaining > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return recs, hw, fmt.Errorf("reading %s to its high watermark: %w (%d of %d partitions done)", topic, ctx.Err(), len(done), len(assign))
		}
		fs.EachError(func(t string, p int32, err error) {
			// Transient errors (leader moving) are retried by the client.
			_ = err
		})
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset >= hw[r.Partition] {
				return
			}
			recs = append(recs, results.Record{ID: string(r.Value), Partition: r.Partition, Offset: r.Offset})
			if r.Offset == hw[r.Partition]-1 && !done[r.Partition] {
				done[r.Partition] = true
				remaining--
			}
		})
	}
	return recs, hw, nil
}
