package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

var _ = handles(powerloss, runbook.OpPowerloss)

// powerloss: powerloss NODE... — every node loses power at the same
// moment: its broker is killed and what it had not fsynced is gone. The
// step says how much that was, node by node, and the event what the
// nodes showed of it (powerLanded). Like kill, it leaves the
// nodes down until a start, and shades the report's timeline.
func powerloss(ctx context.Context, n *nemesis, s runbook.Step, p runbook.Powerloss, log *stepLog) error {
	pl, ok := n.opts.Backend.(cluster.PowerLoss)
	if !ok {
		return fmt.Errorf("this cluster backend cannot cut a node's power: powerloss needs the local backend")
	}
	nodes, err := n.targets(ctx, p.Targets)
	if err != nil {
		return err
	}
	at := time.Now().UTC()
	dropped, err := pl.PowerLoss(ctx, nodes, log.progress)
	if err != nil {
		return err
	}
	f := results.Fault{At: at, Op: "powerloss", Nodes: nodes, Pos: s.Pos.String()}
	f.Observed, f.Unproven = n.powerLanded(ctx, nodes, dropped)
	n.record(f)
	n.left(nodes, cluster.Killed, s)
	var lost []string
	for _, d := range dropped {
		lost = append(lost, fmt.Sprintf("%s %s in %d file(s) and %d metadata change(s)", d.Node, cluster.BytesText(d.Bytes), d.Files, d.Metadata))
	}
	log.line("powerloss %s: not fsynced, so gone: %s", strings.Join(nodes, " "), strings.Join(lost, "; "))
	if f.Unproven {
		log.line("  powerloss %s did not land as far as the nodes show: %s", strings.Join(nodes, " "), f.Observed)
	}
	return nil
}

// powerLanded says what the nodes show of a power loss: each broker's
// JVM gone, as /proc shows it (cluster.Observer, as for kill), and what
// the node's layer held that the broker had not fsynced when it was cut
// off, as the layer counted it (dropped). A power loss that found
// nothing unsynced was a kill and no more: it did not land.
func (n *nemesis) powerLanded(ctx context.Context, nodes []string, dropped []cluster.Dropped) (string, bool) {
	var said []string
	unproven := false
	if o, ok := n.opts.Backend.(cluster.Observer); ok {
		gone, landed, err := o.Observe(ctx, cluster.Kill, nodes)
		switch {
		case err != nil:
			said = append(said, "not read: "+err.Error())
		default:
			said = append(said, gone)
			unproven = !landed
		}
	}
	for _, d := range dropped {
		if d.Bytes == 0 && d.Metadata == 0 {
			said = append(said, fmt.Sprintf("%s's layer held nothing that was not fsynced: the power loss discarded nothing", d.Node))
			unproven = true
			continue
		}
		said = append(said, fmt.Sprintf("%s's layer discarded %s in %d file(s) and %d metadata change(s) not fsynced", d.Node, cluster.BytesText(d.Bytes), d.Files, d.Metadata))
	}
	return strings.Join(said, "; "), unproven
}
