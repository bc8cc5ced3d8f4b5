package engine

import (
	"context"
	"fmt"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/runbook"
)

var _ = handles(isr, runbook.OpISR)

// isr: isr TOPIC [--via NODE]
func isr(ctx context.Context, o *observation, s runbook.Step, in runbook.Inspect, log *stepLog) error {
	label := in.Topic
	partitions := o.partitions
	if in.Via != (runbook.Target{}) {
		seeds, _, err := o.seeds(ctx, in.Via)
		if err != nil {
			return err
		}
		client, err := kafka.Dial(seeds)
		if err != nil {
			return err
		}
		defer client.Close()
		partitions = client.Partitions
	}
	parts, err := partitions(ctx, o.realName(label))
	if err != nil {
		return err
	}
	for _, p := range parts {
		p.Topic = label
		log.line("%s", p)
	}
	if len(parts) == 0 {
		return fmt.Errorf("no partitions for %s", label)
	}
	return nil
}
