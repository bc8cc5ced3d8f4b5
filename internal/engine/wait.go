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

var _ = handles(waitLeader, runbook.OpWaitLeader)

// waitLeader: wait leader TOPIC in NODE,NODE [--timeout DUR]
func waitLeader(ctx context.Context, o *observation, s runbook.Step, w runbook.WaitLeader, log *stepLog) error {
	label := w.Topic
	var want []int32
	var names []string
	for _, t := range w.In {
		want = append(want, int32(t.ID()))
		names = append(names, t.String())
	}
	start := time.Now()
	var leader int32 = -1
	err := poll.Until(ctx, 100*time.Millisecond, w.Timeout, log.progress, func(ctx context.Context) (bool, string, error) {
		parts, err := o.partitions(ctx, o.realName(label))
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

var _ = handles(waitISR, runbook.OpWaitISR)

// waitISR: wait isr TOPIC --size N [--timeout DUR]
func waitISR(ctx context.Context, o *observation, s runbook.Step, w runbook.WaitISR, log *stepLog) error {
	label, size := w.Topic, w.Size
	start := time.Now()
	err := poll.Until(ctx, 100*time.Millisecond, w.Timeout, log.progress, func(ctx context.Context) (bool, string, error) {
		parts, err := o.partitions(ctx, o.realName(label))
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
