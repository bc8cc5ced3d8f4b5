package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
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
	ends, err := endOffsets(ctx, kadm.NewClient(admCl), topic)
	if err != nil {
		return nil, nil, err
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

// endOffsets lists the high watermarks, retrying while a new leader is
// still settling (OFFSET_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, ...).
func endOffsets(ctx context.Context, adm *kadm.Client, topic string) (kadm.ListedOffsets, error) {
	for {
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err == nil {
			err = ends.Error()
		}
		if err == nil {
			return ends, nil
		}
		if !kerr.IsRetriable(err) && !errors.Is(err, kerr.OffsetNotAvailable) || ctx.Err() != nil {
			return nil, fmt.Errorf("high watermark of %s: %w", topic, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("high watermark of %s: %w (last error: %v)", topic, ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
