package netfault

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// Nodes is how a backend finds its nodes' namespaces: with names, exactly
// those (an error naming one that is not there or has no namespace now);
// without, every node that has a namespace now. port is the inter-broker
// listener's port, 0 when the backend cannot tell.
type Nodes func(ctx context.Context, names []string) (nodes map[string]Node, port int, err error)

// Faults is cluster.NetFaults over a backend's Nodes: what every backend
// that runs iptables in its nodes' namespaces does the same way. A
// backend's Partition, Loss and HealNetwork call it.
type Faults struct{ Nodes Nodes }

// Partition stops traffic from every node of from to every node of to,
// and back unless cut.OneWay; with cut.KeepQuorum only the inter-broker
// listener's traffic (see the package function).
func (f Faults) Partition(ctx context.Context, from, to []string, cut cluster.Cut) error {
	nodes, port, err := f.prepared(ctx, slices.Concat(from, to))
	if err != nil {
		return err
	}
	if cut.KeepQuorum && port == 0 {
		return errors.New("partition --keep-quorum: cannot tell the inter-broker listener's port")
	}
	return Partition(ctx, Pick(nodes, from), Pick(nodes, to), cut, port)
}

// Loss drops percent of the packets on the node's links, both ways, and
// replaces any loss set before; 0 removes it.
func (f Faults) Loss(ctx context.Context, node string, percent int) error {
	nodes, _, err := f.prepared(ctx, []string{node})
	if err != nil {
		return err
	}
	return Loss(ctx, nodes[node], percent)
}

// Rate limits what the node sends to bitsPerSec (see the package
// function); 0 removes the limit.
func (f Faults) Rate(ctx context.Context, node string, bitsPerSec int64) error {
	nodes, _, err := f.Nodes(ctx, []string{node})
	if err != nil {
		return err
	}
	return Rate(ctx, nodes[node], bitsPerSec)
}

// QueueDelay hands what node sends (to the nodes of to only, when there
// are some) to the delayer's queue (see the package function); the
// backend runs the delayer. It is not named Delay: a backend that embeds
// Faults is a cluster.Delayer only when it runs delayers.
func (f Faults) QueueDelay(ctx context.Context, node string, to []string) error {
	nodes, _, err := f.prepared(ctx, append([]string{node}, to...))
	if err != nil {
		return err
	}
	return QueueDelay(ctx, nodes[node], Pick(nodes, to))
}

// Unqueue stops handing what node sends to the delayer's queue.
func (f Faults) Unqueue(ctx context.Context, node string) error {
	nodes, _, err := f.Nodes(ctx, []string{node})
	if err != nil {
		return err
	}
	return Unqueue(ctx, nodes[node])
}

// HealNetwork removes every partition, loss, delay rule and rate limit of
// every node that has a namespace now.
func (f Faults) HealNetwork(ctx context.Context) error {
	nodes, _, err := f.Nodes(ctx, nil)
	if err != nil {
		return err
	}
	return Heal(ctx, f.list(nodes))
}

// Rules lists the rules in place, by node: empty when the network is whole.
func (f Faults) Rules(ctx context.Context) (map[string][]string, error) {
	nodes, _, err := f.Nodes(ctx, nil)
	if err != nil {
		return nil, err
	}
	return Rules(ctx, f.list(nodes)), nil
}

// prepared is the named nodes with kafkabook's chains made in each.
func (f Faults) prepared(ctx context.Context, names []string) (map[string]Node, int, error) {
	nodes, port, err := f.Nodes(ctx, names)
	if err != nil {
		return nil, 0, err
	}
	for _, name := range names {
		if err := Prepare(ctx, nodes[name]); err != nil {
			return nil, 0, err
		}
	}
	return nodes, port, nil
}

// list is nodes in name order.
func (f Faults) list(nodes map[string]Node) []Node {
	return Pick(nodes, slices.Sorted(maps.Keys(nodes)))
}
