package consumer

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
)

// handoffPoll bounds one poll of the handoff loop, so that the loop makes
// its commits while no record comes (the Java member's poll timeout).
const handoffPoll = 100 * time.Millisecond

// runHandoff is the member with processing handed off
// (docs/driver-protocol.md, "handoff"): the poll loop hands each record to
// one worker goroutine through a queue of at most batch records, waiting
// while it is full, and keeps polling. The poll loop makes the member's
// commits before each poll: with before, of the records it handed over;
// with after, of those the worker finished. With auto the commits are
// franz-go's own: each poll marks the records of the one before as done,
// whether or not the worker has reached them. When ctx ends the loop
// stops polling, the worker finishes what it was given and the loop
// commits it.
func (m *member) runHandoff(ctx, work context.Context) error {
	queue := make(chan kafka.Delivered, max(1, m.spec.Batch))
	failed := make(chan error, 1)
	var mu sync.Mutex
	var done []kafka.Delivered // finished by the worker, not yet committed
	var pending sync.WaitGroup // handed over, not yet handled
	go func() {
		for d := range queue {
			if err := m.handle(work, d, nil); err != nil {
				failed <- err
				return
			}
			mu.Lock()
			done = append(done, d)
			mu.Unlock()
			pending.Done()
		}
	}()
	handed := map[int32]int64{} // per partition: the offset after the last record handed over
	commitPending := func() error {
		next := map[int32]int64{}
		switch m.spec.Commit {
		case CommitBefore:
			next, handed = handed, map[int32]int64{}
		case CommitAfter:
			mu.Lock()
			for _, d := range done {
				next[d.Partition] = max(next[d.Partition], d.Offset+1)
			}
			done = done[:0]
			mu.Unlock()
		}
		for p, o := range next {
			if err := m.commit(work, kafka.Delivered{Partition: p, Offset: o - 1}); err != nil {
				return err
			}
		}
		return nil
	}
	for ctx.Err() == nil {
		if err := commitPending(); err != nil {
			return err
		}
		pctx, cancel := context.WithTimeout(ctx, handoffPoll)
		recs, err := m.kc.Poll(pctx, m.spec.Batch)
		cancel()
		if err != nil {
			return err
		}
		for _, d := range recs {
			m.report(results.EventDeliver, d, d.Offset)
		}
		for _, d := range recs {
			pending.Add(1)
			select {
			case queue <- d:
			case err := <-failed:
				return err
			}
			handed[d.Partition] = max(handed[d.Partition], d.Offset+1)
		}
	}
	// A clean stop: the worker finishes what it was given, the loop
	// commits it.
	idle := make(chan struct{})
	go func() { pending.Wait(); close(idle) }()
	select {
	case <-idle:
	case err := <-failed:
		return err
	}
	close(queue)
	if err := commitPending(); err != nil {
		return fmt.Errorf("committing what the worker finished: %w", err)
	}
	return nil
}
