// Package poll is kafkabook's one bounded wait: every "wait until the
// cluster is so" loop (brokers registered, leader moved, ISR full, high
// watermark settled) goes through Until, so timeouts, Ctrl-C and progress
// behave the same everywhere; and its one ticker, Every, for work done
// at a cadence until stopped (flushes, progress lines, samples).
package poll

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress receives one-line progress messages while something waits.
type Progress func(format string, args ...any)

// Cond is checked until it says done or fails. status says what it is
// waiting for ("leader of acks1 is 1, waiting for one of k2,k3"); it is
// shown as progress and named in the timeout error.
type Cond func(ctx context.Context) (done bool, status string, err error)

// Until checks cond every interval until it is done, returns an error, or
// timeout passes. Progress, when not nil, is told the status about once a
// second. The timeout error names the last status seen; cancellation of
// ctx ends the wait with ctx's error.
func Until(ctx context.Context, every, timeout time.Duration, p Progress, cond Cond) error {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	lastShown := start
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		done, status, err := cond(tctx)
		if done || err != nil {
			return err
		}
		if p != nil && time.Since(lastShown) >= time.Second {
			lastShown = time.Now()
			p("%s (%.0fs)", status, time.Since(start).Seconds())
		}
		select {
		case <-tctx.Done():
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if status == "" {
				return fmt.Errorf("timed out after %s", timeout)
			}
			return fmt.Errorf("timed out after %s: %s", timeout, status)
		case <-tick.C:
		}
	}
}

// Printer returns a Progress that writes "<prefix>… message" lines to w,
// one call at a time: the one progress printer of the tool.
func Printer(w io.Writer, prefix string) Progress {
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, prefix+"… "+format+"\n", args...)
	}
}

// Every calls f every d, on a goroutine of its own, until stop is called;
// stop returns once f is no longer running.
func Every(d time.Duration, f func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				f()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
