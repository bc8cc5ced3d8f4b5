package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

var _ = handles(corrupt, runbook.OpCorrupt)

// corrupt: corrupt NODE TOPIC [--partition P] (--bytes N | --truncate
// BYTES) — the newest segment of the partition on a stopped node is
// damaged. The fault event carries the node, and what
// was done where (Observed: the file, its size, the offsets inverted or
// the size it was cut to), so that a reader can match the broker's
// recovery lines at its next start against it.
func corrupt(ctx context.Context, n *nemesis, s runbook.Step, c runbook.Corrupt, log *stepLog) error {
	cr, ok := n.opts.Backend.(cluster.Corrupter)
	if !ok {
		return fmt.Errorf("this cluster backend does not reach a node's log directory: corrupt needs the local, docker or kubernetes backend")
	}
	nodes, err := n.nodes(ctx, c.Node)
	if err != nil {
		return err
	}
	if len(nodes) != 1 {
		return fmt.Errorf("corrupt takes one node, and %s is %d", c.Node, len(nodes))
	}
	dir := fmt.Sprintf("%s-%d", n.realName(c.Topic), c.Partition)
	at := time.Now().UTC()
	done, err := cr.Corrupt(ctx, nodes[0], cluster.Corruption{Dir: dir, Flip: c.Flip, Truncate: c.Truncate})
	if err != nil {
		return err
	}
	n.record(results.Fault{At: at, Op: "corrupt", Nodes: nodes, Pos: s.Pos.String(), Observed: done.String()})
	log.line("corrupt %s", done)
	return nil
}
