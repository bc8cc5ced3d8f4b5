package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

var _ = handles(clock, runbook.OpClock)

// clock: clock NODE... +DUR|-DUR|--reset — the nodes' wall clocks step.
// What the backend wrote is not the proof: each node's offset is read
// back through Kafka, from the timestamp its broker puts on a record it
// appends to a LogAppendTime topic of its own, and the fault event
// carries the nodes and the jump as written, with that reading as what
// the cluster showed (Observed).
func clock(ctx context.Context, n *nemesis, s runbook.Step, c runbook.Clock, log *stepLog) error {
	clocks, ok := n.opts.Backend.(cluster.Clocks)
	if !ok {
		return fmt.Errorf("this cluster backend cannot step a node's clock: clock needs the local, docker or kubernetes backend, whose brokers run with libfaketime preloaded")
	}
	nodes, err := n.targets(ctx, c.Targets)
	if err != nil {
		return err
	}
	at := time.Now().UTC()
	set, err := clocks.Clock(ctx, nodes, c.Jump, c.Reset)
	if err != nil {
		return err
	}
	var seen []string
	for _, st := range set {
		seen = append(seen, n.readClock(ctx, st))
	}
	observed := strings.Join(seen, "; ")
	n.record(results.Fault{At: at, Op: "clock", Nodes: append(slices.Clone(nodes), c.Written), Pos: s.Pos.String(), Observed: observed})
	log.line("clock %s %s: %s", strings.Join(nodes, " "), c.Written, observed)
	return nil
}

// clockLands bounds the wait for a new offset to show: libfaketime in
// the broker reads it again at most once a second.
const clockLands = 6 * time.Second

// readClock reads a node's clock back through Kafka, waiting until it
// shows the offset set (within a second and the reading's uncertainty),
// and says what it read: the offset, or why there is none.
func (n *nemesis) readClock(ctx context.Context, set cluster.ClockState) string {
	want := cluster.OffsetText(set.Offset)
	node, ok := n.status.Node(set.Node)
	if !ok {
		return fmt.Sprintf("%s's clock set %s, not read back: no such node", set.Node, want)
	}
	if st, err := n.opts.Backend.Status(ctx); err == nil {
		if now, ok := st.Node(set.Node); ok && now.State != cluster.Running {
			return fmt.Sprintf("%s's clock set %s, not read back: the node is %s", set.Node, want, now.State)
		}
	}
	topic := n.realName("kafkabook-clock-" + set.Node)
	if err := n.admin.EnsureTopic(ctx, kafka.ClockTopic(topic, int32(node.ID))); err != nil {
		return fmt.Sprintf("%s's clock set %s, not read back: %v", set.Node, want, err)
	}
	var got, within time.Duration
	var err error
	for deadline := time.Now().Add(clockLands); ; time.Sleep(250 * time.Millisecond) {
		got, within, err = kafka.ClockOffset(ctx, n.brokers(node.Address), topic)
		if err == nil && (got-set.Offset).Abs() <= time.Second+within || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
	}
	switch {
	case err != nil:
		return fmt.Sprintf("%s's clock set %s, not read back: %v", set.Node, want, err)
	case (got - set.Offset).Abs() > time.Second+within:
		return fmt.Sprintf("%s's clock set %s, but its broker stamps records %s from this host's clock: the jump did not land", set.Node, want, cluster.OffsetText(got.Round(time.Millisecond)))
	}
	return fmt.Sprintf("%s's clock set %s; its broker stamps a LogAppendTime record %s ±%s from this host's clock",
		set.Node, want, cluster.OffsetText(got.Round(time.Millisecond)), within.Round(time.Millisecond))
}
