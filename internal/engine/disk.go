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

// disk: disk NODE... --full|--fail|--slow DUR|--heal — the layer under
// each node's log directory answers as such a disk would. The fault event
// carries the nodes and the fault ("k2", "full"; "healthy" when healed),
// so the report shades the window. A fault proves itself only by what it
// did: the step that ends it (another disk step on the node, or the run's
// end, diskLanded) records how many of the broker's operations it refused
// or delayed, and says when it met none.
func disk(ctx context.Context, n *nemesis, s runbook.Step, d runbook.Disk, log *stepLog) error {
	disks, ok := n.opts.Backend.(cluster.Disks)
	if !ok {
		return fmt.Errorf("this cluster backend cannot reach a node's disk: disk needs the local backend's layer under each node's data")
	}
	nodes, err := n.targets(ctx, d.Targets)
	if err != nil {
		return err
	}
	f := cluster.DiskFault{Full: d.Full, Fail: d.Fail, Slow: d.Slow}
	at := time.Now().UTC()
	was, err := disks.Disk(ctx, nodes, f)
	if err != nil {
		return err
	}
	n.record(results.Fault{At: at, Op: "disk", Nodes: append(slices.Clone(nodes), f.String()), Pos: s.Pos.String(), Observed: landed(was)})
	for _, w := range was {
		if w.Fault != (cluster.DiskFault{}) {
			log.line("%s", w.Landed())
		}
	}
	log.line("disk %s: %s", strings.Join(nodes, " "), f)
	return nil
}

// diskLanded records, at the end of a run, what each disk fault still in
// force did, as the step that heals one does: the heal between runs is
// the backend's, and the evidence must not lose the proof with it.
func (n *nemesis) diskLanded(ctx context.Context) {
	disks, ok := n.opts.Backend.(cluster.Disks)
	if !ok {
		return
	}
	states, err := disks.DiskStates(ctx)
	if err != nil {
		n.con.printf("  reading the disks' faults: %v\n", err)
		return
	}
	var sick []cluster.DiskState
	for _, s := range states {
		if s.Fault != (cluster.DiskFault{}) {
			sick = append(sick, s)
			n.con.printf("  at the run's end, %s\n", s.Landed())
		}
	}
	if len(sick) > 0 {
		n.record(results.Fault{At: time.Now().UTC(), Op: "disk in force", Nodes: []string{}, Observed: landed(sick)})
	}
}

// landed says what the faults that states end did, "" when none was in force.
func landed(states []cluster.DiskState) string {
	var out []string
	for _, s := range states {
		if s.Fault != (cluster.DiskFault{}) {
			out = append(out, s.Landed())
		}
	}
	return strings.Join(out, "; ")
}
