package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/runbook"
)

// waitLeader: wait leader TOPIC in NODE,NODE [--timeout DUR]
func waitLeader(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	label := s.Args[0].Text
	var want []int32
	var names []string
	for _, a := range s.Args[1:] {
		want = append(want, int32(a.Target().ID()))
		names = append(names, a.Text)
	}
	start := time.Now()
	var leader int32 = -1
	err := poll.Until(ctx, 100*time.Millisecond, s.Duration("timeout"), log.progress, func(ctx context.Context) (bool, string, error) {
		parts, err := r.partitions(ctx, r.realName(label))
		if err != nil || len(parts) == 0 {
			return false, fmt.Sprintf("leader of %s in %s: no metadata yet (%v)", label, strings.Join(names, ","), err), nil
		}
		leader = parts[0].Leader
		return slices.Contains(want, leader), fmt.Sprintf("leader of %s is %d, waiting for one of %s", label, leader, strings.Join(names, ",")), nil
	})
	if err != nil {
		return err
	}
	log.line("leader of %s is k%d after %.1fs", label, leader, time.Since(start).Seconds())
	return nil
}

// waitISR: wait isr TOPIC --size N [--timeout DUR]
func waitISR(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	label := s.Args[0].Text
	size := s.Int("size")
	start := time.Now()
	err := poll.Until(ctx, 100*time.Millisecond, s.Duration("timeout"), log.progress, func(ctx context.Context) (bool, string, error) {
		parts, err := r.partitions(ctx, r.realName(label))
		if err != nil || len(parts) == 0 {
			return false, fmt.Sprintf("ISR of %s: no metadata yet (%v)", label, err), nil
		}
		for _, p := range parts {
			if len(p.ISR) != size {
				return false, fmt.Sprintf("ISR of %s partition %d is %v, waiting for %d members", label, p.ID, p.ISR, size), nil
			}
		}
		return true, "", nil
	})
	if err != nil {
		return err
	}
	log.line("ISR of %s has %d members after %.1fs", label, size, time.Since(start).Seconds())
	return nil
}

// waitProducers: wait producers [--timeout DUR]
func waitProducers(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	start := time.Now()
	if err := r.waitBackground(ctx, s.Duration("timeout"), log); err != nil {
		return err
	}
	log.line("background producers done after %.1fs", time.Since(start).Seconds())
	return nil
}

// waitHealthy: wait healthy [--timeout DUR]
func waitHealthy(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	start := time.Now()
	if err := r.waitHealthy(ctx, s.Duration("timeout"), log.progress); err != nil {
		return err
	}
	log.line("healthy after %.1fs", time.Since(start).Seconds())
	return nil
}

// sleep: sleep DUR
func sleep(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	d, err := time.ParseDuration(s.Args[0].Text)
	if err != nil {
		return err
	}
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
