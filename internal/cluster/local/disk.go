package local

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/powerfs"
)

// A node's disk faults are the power-loss layer's (powerfs.Fault): the
// layer under its log directory answers the broker's writes as a full,
// failed or slow disk would. So a cluster needs the layer for them, as
// for a power loss; the fault lives in the layer's process and goes with
// it (a power loss heals the disk).

var _ cluster.Disks = (*Backend)(nil)

// layerAnswer bounds how long the layer's process may take to answer.
const layerAnswer = 5 * time.Second

// Disk puts f in force in the layers of the named nodes.
func (b *Backend) Disk(ctx context.Context, names []string, f cluster.DiskFault) ([]cluster.DiskState, error) {
	var was []cluster.DiskState
	err := b.withLayers(names, func(n nodeState) error {
		old, hits, err := powerfs.AskFault(n.Layer.PID, n.layerStats(), layerAnswer)
		if err != nil {
			return err
		}
		if err := powerfs.PutFault(n.Layer.PID, n.layerStats(), powerfs.Fault(f), layerAnswer); err != nil {
			return err
		}
		was = append(was, diskState(n.Name, old, hits))
		return nil
	})
	return was, err
}

// DiskStates is the fault in force in every node's layer. A cluster
// without the layer, or a node whose layer is down (after a power loss),
// has a healthy disk.
func (b *Backend) DiskStates(ctx context.Context) ([]cluster.DiskState, error) {
	st, ok, err := b.load()
	if err != nil || !ok || !st.PowerLoss {
		return nil, err
	}
	var out []cluster.DiskState
	for _, n := range st.Nodes {
		if !n.Layer.alive() {
			continue
		}
		f, hits, err := powerfs.AskFault(n.Layer.PID, n.layerStats(), layerAnswer)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.Name, err)
		}
		out = append(out, diskState(n.Name, f, hits))
	}
	return out, nil
}

func diskState(node string, f powerfs.Fault, h powerfs.Hits) cluster.DiskState {
	return cluster.DiskState{Node: node, Fault: cluster.DiskFault(f), Refused: h.Refused, Delayed: h.Delayed, Used: h.Used, Limit: h.Limit}
}

// withLayers calls do for each named node, under the cluster's lock, with
// its layer alive.
func (b *Backend) withLayers(names []string, do func(n nodeState) error) error {
	if err := needLayer(); err != nil {
		return err
	}
	return b.changing("disk", names, func(st *state, idx []int) error {
		if !st.PowerLoss {
			return fmt.Errorf("cluster %q runs without the layer under its nodes' data, which disk faults need; a run whose runbook uses disk starts a cluster with it", b.name)
		}
		for _, i := range idx {
			n := st.Nodes[i]
			if !n.Layer.alive() {
				return fmt.Errorf("%s: its disk layer is not running (it lost power): start it first", n.Name)
			}
			if err := do(n); err != nil {
				return fmt.Errorf("disk %s: %w", n.Name, err)
			}
		}
		return nil
	})
}
