package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// sampleEvery keeps leader/ISR samples under DESIGN.md's 250 ms bound
// even when a metadata request takes a while (a controller busy creating a
// topic answers in 100 ms or more); sampleTimeout bounds one request, so
// one slow broker costs at most one sample.
const (
	sampleEvery   = 100 * time.Millisecond
	sampleTimeout = 150 * time.Millisecond
)

// sampler records the leader and ISR of every topic of the run from fresh
// metadata, and remembers the latest leader epochs for the ledger.
type sampler struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	epochs map[string]int32 // "topic/partition" -> leader epoch
}

func startSampler(ctx context.Context, r *runner) *sampler {
	ctx, cancel := context.WithCancel(ctx)
	s := &sampler{cancel: cancel, done: make(chan struct{}), epochs: map[string]int32{}}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(sampleEvery)
		defer tick.Stop()
		for {
			if topics := r.realTopics(); len(topics) > 0 {
				s.sample(ctx, r, topics)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *sampler) sample(ctx context.Context, r *runner, topics []string) {
	ctx, cancel := context.WithTimeout(ctx, sampleTimeout)
	defer cancel()
	parts, err := r.partitions(ctx, topics...)
	if err != nil {
		return // a broker is down or unreachable; the next tick tries another
	}
	at := time.Now().UTC()
	for _, p := range parts {
		s.mu.Lock()
		s.epochs[key(p.Topic, p.ID)] = p.LeaderEpoch
		s.mu.Unlock()
		r.ev.Emit(results.KindISR, r.num, results.ISRSample{
			At: at, Topic: r.label(p.Topic), Partition: p.ID, Leader: p.Leader,
			ISR: slices.Clone(p.ISR), Replicas: slices.Clone(p.Replicas),
		})
	}
}

// epoch is the last sampled leader epoch of a partition, -1 if unknown.
func (s *sampler) epoch(topic string, partition int32) int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.epochs[key(topic, partition)]; ok {
		return e
	}
	return -1
}

func (s *sampler) stop() {
	s.cancel()
	<-s.done
}

func key(topic string, p int32) string { return fmt.Sprintf("%s/%d", topic, p) }
