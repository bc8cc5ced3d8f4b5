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
// step says how much that was, node by node. Like kill, it leaves the
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
	n.record(results.Fault{At: at, Op: "powerloss", Nodes: nodes, Pos: s.Pos.String()})
	n.left(nodes, cluster.Killed, s)
	var lost []string
	for _, d := range dropped {
		lost = append(lost, fmt.Sprintf("%s %s in %d file(s) and %d metadata change(s)", d.Node, bytesText(d.Bytes), d.Files, d.Metadata))
	}
	log.line("powerloss %s: not fsynced, so gone: %s", strings.Join(nodes, " "), strings.Join(lost, "; "))
	return nil
}

// bytesText is a byte count for people: 812 B, 14.2 KiB, 3.1 MiB.
func bytesText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}
