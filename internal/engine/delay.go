package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// handshakes is how many TCP handshakes measure a delayed link; with
// jitter, more, so that the spread shows.
const handshakes, jitterHandshakes = 5, 11

// delay puts link --delay in force on each node, then measures it over
// the link: TCP handshakes with each node's broker listener, whose
// SYN-ACK the node sends, from where the clients run (or, with --to, from the
// first node of --to's network, the one side that sees it), before and
// after. The fault event's Observed and the step's line say what was
// measured, so that the evidence shows the delay landed and how large
// it is, not what the delayer says of itself.
func (n *nemesis) delay(ctx context.Context, s runbook.Step, l runbook.Link, nodes []string, log *stepLog) error {
	d, ok := n.opts.Backend.(cluster.Delayer)
	if !ok {
		return fmt.Errorf("this cluster backend cannot delay a link: link --delay needs the local, docker or kubernetes backend, which run kafkabook's delayer in each node's network namespace")
	}
	from := ""
	if len(l.To) > 0 {
		from = l.To[0]
	}
	samples := handshakes
	if l.Jitter > 0 {
		samples = jitterHandshakes
	}
	before := map[string][]time.Duration{}
	for _, node := range nodes {
		before[node], _ = d.Handshakes(ctx, from, node, handshakes) // a node that is down has none
	}
	at := time.Now().UTC()
	for _, node := range nodes {
		if err := d.Delay(ctx, node, cluster.LinkDelay{Delay: l.Delay, Jitter: l.Jitter, To: l.To}); err != nil {
			return err
		}
	}
	var seen []string
	for _, node := range nodes {
		after, err := d.Handshakes(ctx, from, node, samples)
		seen = append(seen, measured(node, from, before[node], after, err))
	}
	observed := strings.Join(seen, "; ")
	n.record(results.Fault{At: at, Op: "delay", Nodes: append(slices.Clone(nodes), l.DelayWritten), Pos: s.Pos.String(), Observed: observed})
	if l.Delay == 0 {
		log.line("link %s: no delay; measured: %s", strings.Join(nodes, " "), observed)
	} else {
		log.line("link %s: each holds what it sends %s; measured: %s", strings.Join(nodes, " "), l.DelayWritten, observed)
	}
	return nil
}

// measured says what handshakes with node's broker showed, before and
// after the step: "handshakes with k2's broker from where the clients
// run: min 100.4 ms, median 100.9 ms, max 101.2 ms (5; before: median
// 0.1 ms)". Where the clients run is this machine, or the clients' pod on
// Kubernetes (cluster.Delayer's Handshakes from "").
func measured(node, from string, before, after []time.Duration, err error) string {
	where := "where the clients run"
	if from != "" {
		where = from
	}
	head := fmt.Sprintf("handshakes with %s's broker from %s: ", node, where)
	if err != nil || len(after) == 0 {
		return head + fmt.Sprintf("not measured (%v)", err)
	}
	out := head + fmt.Sprintf("min %s, median %s, max %s (%d", msText(after[0]), msText(after[len(after)/2]), msText(after[len(after)-1]), len(after))
	if len(before) > 0 {
		out += "; before: median " + msText(before[len(before)/2])
	}
	return out + ")"
}

// msText is a duration in milliseconds to a tenth.
func msText(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}
