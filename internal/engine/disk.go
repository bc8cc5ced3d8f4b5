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

var _ = handles(disk, runbook.OpDisk)

// disk: disk NODE... --full|--fail|--slow DUR|--size SIZE|--free SIZE|--heal — the layer under
// each node's log directory answers as such a disk would. The fault event
// carries the nodes and the fault ("k2", "full"; "healthy" when healed),
// so the report shades the window. A fault proves itself only by what it
// did: the step that ends it (another disk step on the node, or the run's
// end, inForceAtEnd) records how many of the broker's operations it refused
// or delayed, and says when it met none (inforce.go).
func disk(ctx context.Context, n *nemesis, s runbook.Step, d runbook.Disk, log *stepLog) error {
	disks, ok := n.opts.Backend.(cluster.Disks)
	if !ok {
		return fmt.Errorf("this cluster backend cannot reach a node's disk: disk needs the local backend's layer under each node's data")
	}
	nodes, err := n.targets(ctx, d.Targets)
	if err != nil {
		return err
	}
	f := cluster.DiskFault{Full: d.Full, Fail: d.Fail, Slow: d.Slow, Size: d.Size, Free: d.Free}
	at := time.Now().UTC()
	was, err := disks.Disk(ctx, nodes, f)
	if err != nil {
		return err
	}
	said, unproven := ended(was)
	now, landed := diskNow(ctx, disks, nodes, f)
	said, unproven = append(said, now...), unproven || !landed
	n.record(results.Fault{At: at, Op: "disk", Nodes: append(slices.Clone(nodes), f.String()), Pos: s.Pos.String(), Observed: strings.Join(said, "; "), Unproven: unproven})
	for _, w := range said {
		log.line("%s", w)
	}
	log.line("disk %s: %s", strings.Join(nodes, " "), f)
	return nil
}

// diskNow says the fault each node's layer answers with now, as the layer
// tells it, and whether that is f.
func diskNow(ctx context.Context, disks cluster.Disks, nodes []string, f cluster.DiskFault) (said []string, landed bool) {
	states, err := disks.DiskStates(ctx)
	if err != nil {
		return []string{"not read after the step: " + err.Error()}, true
	}
	landed = true
	for _, node := range nodes {
		i := slices.IndexFunc(states, func(s cluster.DiskState) bool { return s.Node == node })
		if i < 0 {
			said, landed = append(said, node+"'s layer did not answer"), false
			continue
		}
		if f.Size > 0 || f.Free > 0 {
			// What the limit is measured against: how near full it starts.
			said = append(said, fmt.Sprintf("%s's layer now answers as a disk of %s, %s of it taken", node, cluster.BytesText(states[i].Limit), cluster.BytesText(states[i].Used)))
		} else {
			said = append(said, fmt.Sprintf("%s's layer now answers as a %s disk", node, states[i].Fault))
		}
		landed = landed && states[i].Fault == f
	}
	return said, landed
}
