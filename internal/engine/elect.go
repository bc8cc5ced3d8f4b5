package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

var _ = handles(elect, runbook.OpElect)

// elect: elect TOPIC (--preferred | --unclean) [--partition P] — the
// controller's answer is not the proof: the leaders and leader epochs
// are read before and after, from fresh metadata, and the fault event's
// Observed says which partitions changed leader; an election that changed
// none is unproven. ELECTION_NOT_NEEDED is the controller's word for a
// partition that needed none, which the step says and does not fail on;
// any other error fails it.
func elect(ctx context.Context, n *nemesis, s runbook.Step, e runbook.Elect, log *stepLog) error {
	topic := n.realName(e.Topic)
	before, err := partitionsOf(ctx, n.env, topic, e.Partition)
	if err != nil {
		return err
	}
	parts := slices.Sorted(maps.Keys(before))
	at := time.Now().UTC()
	answers, err := n.admin.ElectLeaders(ctx, topic, parts, e.Unclean)
	if err != nil {
		return fmt.Errorf("elect %s: %w", e.Topic, err)
	}
	var refused []string
	for _, p := range slices.Sorted(maps.Keys(answers)) {
		if a := answers[p]; a != "" {
			log.line("partition %d: %s", p, a)
			if !strings.HasPrefix(a, "ELECTION_NOT_NEEDED") {
				refused = append(refused, fmt.Sprintf("partition %d: %s", p, a))
			}
		}
	}
	how := "--preferred"
	if e.Unclean {
		how = "--unclean"
	}
	f := results.Fault{At: at, Op: "elect", Nodes: []string{e.Topic, how}, Pos: s.Pos.String()}
	// The controller has elected by the time it answers; the brokers'
	// metadata follows within moments.
	var changed []string
	_ = poll.Until(ctx, 100*time.Millisecond, 5*time.Second, log.progress, func(ctx context.Context) (bool, string, error) {
		after, err := partitionsOf(ctx, n.env, topic, e.Partition)
		if err != nil {
			return false, err.Error(), nil
		}
		changed = changed[:0]
		for id, b := range before {
			if a, ok := after[id]; ok && a.LeaderEpoch != b.LeaderEpoch {
				changed = append(changed, fmt.Sprintf("partition %d: leader %s → %s (epoch %d → %d)", id, nodeName(b.Leader), nodeName(a.Leader), b.LeaderEpoch, a.LeaderEpoch))
			}
		}
		return len(changed) > 0, "waiting for a new leader epoch in the metadata", nil
	})
	slices.Sort(changed)
	if len(changed) == 0 {
		f.Observed, f.Unproven = "no partition's leader epoch changed within 5s, read from fresh metadata: no election was held", true
	} else {
		f.Observed = strings.Join(changed, "; ")
	}
	n.record(f)
	log.line("elect %s %s: %s", e.Topic, how, f.Observed)
	if len(refused) > 0 {
		return fmt.Errorf("elect %s %s: the controller refused %s", e.Topic, how, strings.Join(refused, "; "))
	}
	return nil
}

// partitionsOf are the topic's partitions (one, or all for partition -1)
// by id, from fresh metadata of the nodes that can answer now.
func partitionsOf(ctx context.Context, e *env, topic string, partition int) (map[int32]kafka.Partition, error) {
	parts, err := e.partitions(ctx, topic)
	if err != nil {
		return nil, err
	}
	out := map[int32]kafka.Partition{}
	for _, p := range parts {
		if partition < 0 || p.ID == int32(partition) {
			out[p.ID] = p
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("topic %s has no partition %d", topic, partition)
	}
	return out, nil
}

// nodeName is a broker id as the evidence names nodes: k2, or "none".
func nodeName(id int32) string {
	if id < 0 {
		return "none"
	}
	return runbook.NodeName(id)
}
