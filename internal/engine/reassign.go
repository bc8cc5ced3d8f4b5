package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// reassignment is how a reassign's fault event names it: the topic and
// its new replicas, "acksall to 2:3:1" (partitions by commas), which
// wait reassigned's event repeats so that the report's window closes.
func reassignment(topic string, replicas [][]int32) string {
	var parts []string
	for _, r := range replicas {
		var ids []string
		for _, id := range r {
			ids = append(ids, fmt.Sprint(id))
		}
		parts = append(parts, strings.Join(ids, ":"))
	}
	return topic + " to " + strings.Join(parts, ",")
}

var _ = handles(reassign, runbook.OpReassign)

// reassign: reassign TOPIC --replicas 2:3:1 [--throttle RATE] — the
// controller takes the new assignment; wait reassigned follows it to its
// end. The nemesis remembers it for that wait.
func reassign(ctx context.Context, n *nemesis, s runbook.Step, r runbook.Reassign, log *stepLog) error {
	at := time.Now().UTC()
	if err := n.admin.Reassign(ctx, n.realName(r.Topic), r.Replicas, r.Throttle, n.brokerIDs()); err != nil {
		return err
	}
	name := reassignment(r.Topic, r.Replicas)
	n.mu.Lock()
	n.reassigning[r.Topic] = reassigning{name: name, throttled: r.Throttle > 0}
	n.mu.Unlock()
	n.record(results.Fault{At: at, Op: "reassign", Nodes: []string{name}, Pos: s.Pos.String()})
	how := ""
	if r.Throttle > 0 {
		how = ", replication throttled to " + r.Rate + " on every broker"
	}
	log.line("reassigning %s%s", name, how)
	return nil
}

// reassigning is a reassignment a reassign step started.
type reassigning struct {
	name      string
	throttled bool
}

var _ = handles(waitReassigned, runbook.OpWaitReassigned)

// waitReassigned: wait reassigned TOPIC [--timeout DUR] — until the
// controller lists no reassignment of the topic, then the throttle off.
func waitReassigned(ctx context.Context, n *nemesis, s runbook.Step, w runbook.WaitReassigned, log *stepLog) error {
	topic := n.realName(w.Topic)
	start := time.Now()
	err := poll.Until(ctx, 200*time.Millisecond, w.Timeout, log.progress, func(ctx context.Context) (bool, string, error) {
		rs, err := n.admin.Reassigning(ctx, topic)
		if err != nil {
			return false, err.Error(), nil
		}
		if len(rs) == 0 {
			return true, "", nil
		}
		var b []string
		for _, r := range rs {
			b = append(b, fmt.Sprintf("partition %d adding %v removing %v", r.Partition, r.AddingReplicas, r.RemovingReplicas))
		}
		return false, "reassigning " + w.Topic + ": " + strings.Join(b, "; "), nil
	})
	if err != nil {
		return err
	}
	at := time.Now().UTC()
	n.mu.Lock()
	r, ok := n.reassigning[w.Topic]
	delete(n.reassigning, w.Topic)
	// The brokers' rates are shared by every throttled move: they go with
	// the last one, as one kafka-reassign-partitions.sh --verify of both
	// topics would remove them.
	others := 0
	for _, o := range n.reassigning {
		if o.throttled {
			others++
		}
	}
	n.mu.Unlock()
	removed := ""
	if ok && r.throttled {
		brokers := n.brokerIDs()
		removed = "; throttle removed"
		if others > 0 {
			brokers = nil
			removed = fmt.Sprintf("; the topic's throttle removed, the brokers' rate kept for %d other move(s)", others)
		}
		if err := n.admin.Unthrottle(ctx, topic, brokers); err != nil {
			return err
		}
	}
	if ok {
		n.record(results.Fault{At: at, Op: "reassigned", Nodes: []string{r.name}, Pos: s.Pos.String()})
	}
	log.line("no reassignment of %s in progress after %.1fs%s", w.Topic, time.Since(start).Seconds(), removed)
	return nil
}

// brokerIDs are the ids of the cluster's nodes.
func (n *nemesis) brokerIDs() []int32 {
	var ids []int32
	for _, node := range n.status.Nodes {
		ids = append(ids, int32(node.ID))
	}
	return ids
}
