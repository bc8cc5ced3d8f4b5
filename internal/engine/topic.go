package engine

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/runbook"
)

var _ = handles(topicCreate, runbook.OpTopicCreate)

// topicCreate: topic create NAME [--partitions N] [--replicas 1:2:3] [--replication-factor N] [--config K=V]...
func topicCreate(ctx context.Context, w *workload, s runbook.Step, tc runbook.TopicCreate, log *stepLog) error {
	label := tc.Topic
	t := w.topic(label)
	spec := kafka.TopicSpec{
		Name:       t.name,
		Partitions: tc.Partitions,
		Assignment: tc.Replicas,
		Configs:    tc.Config,
	}
	if len(spec.Assignment) == 0 {
		spec.ReplicationFactor = tc.ReplicationFactor
		if spec.ReplicationFactor == 0 {
			spec.ReplicationFactor = int16(len(w.status.Nodes)) // every node, unless told
		}
	}
	if err := w.admin.CreateTopic(ctx, spec); err != nil {
		return err
	}
	// Every running broker must know the topic before the next step: a
	// node restarted a moment ago may still lag behind the metadata log.
	_, ids := w.running(ctx)
	for _, id := range ids {
		err := poll.Until(ctx, 100*time.Millisecond, 30*time.Second, log.progress, func(ctx context.Context) (bool, string, error) {
			parts, err := w.admin.PartitionsAt(ctx, id, t.name)
			if err != nil || len(parts) == 0 || parts[0].Leader < 0 {
				return false, fmt.Sprintf("waiting for broker %d to know %s", id, label), nil
			}
			return true, "", nil
		})
		if err != nil {
			return err
		}
	}
	// A follower that asked the leader for the new partition before the
	// leader had created it was told to back off for
	// replica.fetch.backoff.ms; until it asks again, acks=all sends wait.
	// That is the topic's birth, not the experiment: let it pass.
	backoff := time.Second
	if v, ok := w.opts.Doc.Meta.Broker["replica.fetch.backoff.ms"]; ok {
		if ms, err := strconv.Atoi(v); err == nil {
			backoff = time.Duration(ms) * time.Millisecond
		}
	}
	select {
	case <-time.After(backoff):
	case <-ctx.Done():
		return ctx.Err()
	}
	log.line("created %s (in the cluster: %s)", label, t.name)
	return nil
}
