package engine

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// A sample is started every sampleEvery, each on its own, at most
// sampleInFlight at once, so that one slow answer (a broker busy creating a
// topic can take 300 ms) does not hold up the next: samples stay under the
// 250 ms bound of docs/design.md while brokers answer at all.
const (
	sampleEvery    = 100 * time.Millisecond
	sampleTimeout  = 500 * time.Millisecond
	sampleInFlight = 5
)

// sampler records the leader and ISR of every topic of the run from fresh
// metadata, and remembers the latest leader epochs for the ledger.
type sampler struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	epochs map[partitionKey]int32 // leader epochs
	newest time.Time              // when the newest sample emitted was asked for
}

func startSampler(ctx context.Context, o *observation) *sampler {
	ctx, cancel := context.WithCancel(ctx)
	s := &sampler{cancel: cancel, done: make(chan struct{}), epochs: map[partitionKey]int32{}}
	// Every sample is emitted; results.json keeps the change points and
	// says, from these cadences, how fine they are.
	o.ev.Emit(results.KindSampling, o.num, results.SamplingEvent{
		ISREveryMS: int(sampleEvery / time.Millisecond), OffsetsEveryMS: int(offsetsEvery / time.Millisecond),
	})
	go func() {
		defer close(s.done)
		var wg sync.WaitGroup
		defer wg.Wait()
		slots := make(chan struct{}, sampleInFlight)
		tick := time.NewTicker(sampleEvery)
		defer tick.Stop()
		for {
			if topics := o.history.realTopics(); len(topics) > 0 {
				select {
				case slots <- struct{}{}:
					wg.Add(1)
					go func() {
						defer wg.Done()
						s.sample(ctx, o, topics)
						<-slots
					}()
				default: // every slot waits on a broker; skip this tick
				}
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

func (s *sampler) sample(ctx context.Context, o *observation, topics []string) {
	ctx, cancel := context.WithTimeout(ctx, sampleTimeout)
	defer cancel()
	asked := time.Now()
	parts, err := o.partitions(ctx, topics...)
	if err != nil {
		return // a broker is down or unreachable; the next tick tries another
	}
	// Stamped and emitted under the lock, so samples are in time order;
	// an answer overtaken by the answer to a later question is stale.
	s.mu.Lock()
	defer s.mu.Unlock()
	if asked.Before(s.newest) {
		return
	}
	s.newest = asked
	at := time.Now().UTC()
	for _, p := range parts {
		s.epochs[partitionKey{p.Topic, p.ID}] = p.LeaderEpoch
		o.ev.Emit(results.KindISR, o.num, results.ISRSample{
			At: at, Topic: o.label(p.Topic), Partition: p.ID, Leader: p.Leader,
			ISR: slices.Clone(p.ISR), Replicas: slices.Clone(p.Replicas),
		})
	}
}

// epoch is the last sampled leader epoch of a partition, -1 if unknown.
func (s *sampler) epoch(topic string, partition int32) int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.epochs[partitionKey{topic, partition}]; ok {
		return e
	}
	return -1
}

func (s *sampler) stop() {
	s.cancel()
	<-s.done
}

// partitionKey names a partition without formatting a string: epoch is
// asked once per produced message.
type partitionKey struct {
	topic     string
	partition int32
}

// offsetsEvery is how often the committed offsets of every group with a
// running member are asked of the cluster; every sample is emitted, and
// results.json keeps the changes.
const offsetsEvery = 250 * time.Millisecond

// sampleOffsets records the committed offsets of every group whose member
// runs.
func (o *observation) sampleOffsets(ctx context.Context) {
	live := o.history.liveGroups()
	for _, group := range slices.Sorted(maps.Keys(live)) {
		ctx, cancel := context.WithTimeout(ctx, sampleTimeout)
		sent := time.Now().UTC()
		committed, err := o.admin.Committed(ctx, group, live[group])
		at := time.Now().UTC()
		cancel()
		if err != nil {
			continue
		}
		var samples []results.OffsetSample
		for _, p := range slices.Sorted(maps.Keys(committed)) {
			samples = append(samples, results.OffsetSample{At: at, Sent: sent, Partition: p, Committed: committed[p]})
		}
		o.ev.Emit(results.KindOffsets, o.num, results.OffsetsEvent{Group: group, Samples: samples})
	}
}
