package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/runbook"
)

// backgrounds are the steps of a run that end in & and still run: the
// runner starts them, wait producers and the end of the run wait for them.
type backgrounds struct {
	mu   sync.Mutex
	list []*background
	// ctx is what background steps run under: cancelled when the run
	// fails, so that they stop and record what they had not finished.
	ctx context.Context
}

// background is a produce step still running.
type background struct {
	step runbook.Step
	done chan struct{}
	err  error
}

// add starts a background step's bookkeeping.
func (b *backgrounds) add(bg *background) {
	b.mu.Lock()
	b.list = append(b.list, bg)
	b.mu.Unlock()
}

// wait waits for every background step, up to timeout (0: each
// step's own timeout bounds it). The first background error is returned.
func (b *backgrounds) wait(ctx context.Context, timeout time.Duration, log *stepLog) error {
	b.mu.Lock()
	pending := slices.Clone(b.list)
	b.mu.Unlock()
	var deadline <-chan time.Time
	if timeout > 0 {
		deadline = time.After(timeout)
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	start := time.Now()
	for _, bg := range pending {
		for waiting := true; waiting; {
			select {
			case <-bg.done:
				waiting = false
			case <-deadline:
				return fmt.Errorf("background step %s still running after %s", bg.step.Pos, timeout)
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
				if log != nil {
					log.progress("waiting for background step at line %d (%.0fs)", bg.step.Pos.Line, time.Since(start).Seconds())
				}
			}
		}
	}
	for _, bg := range pending {
		if bg.err != nil {
			return fmt.Errorf("background step %s: %w", bg.step.Pos, bg.err)
		}
	}
	return nil
}

var _ = handles(waitProducers, runbook.OpWaitProducers)

// waitProducers: wait producers [--timeout DUR]
func waitProducers(ctx context.Context, b *backgrounds, s runbook.Step, w runbook.WaitProducers, log *stepLog) error {
	start := time.Now()
	if err := b.wait(ctx, w.Timeout, log); err != nil {
		return err
	}
	log.line("background producers done after %.1fs", time.Since(start).Seconds())
	return nil
}

var _ = handles(sleep, runbook.OpSleep)

// sleep: sleep DUR
func sleep(ctx context.Context, _ struct{}, s runbook.Step, sl runbook.Sleep, log *stepLog) error {
	select {
	case <-time.After(sl.For):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
