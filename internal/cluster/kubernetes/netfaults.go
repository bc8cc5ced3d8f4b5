package kubernetes

import (
	"context"
	"fmt"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/netfault"
)

// Network faults finer than isolation are package netfault's iptables
// rules between the broker pods' addresses, made in each pod's network
// namespace by iptables in its faults container (NET_ADMIN). Other pods,
// the clients' among them, still reach every node. The rules live as long
// as the pod: kill and start keep them (the pod stays), down removes them
// with the pods.

var _ cluster.NetFaults = (*Backend)(nil)

// brokerPort is the listener of clients and of the other brokers (BROKER
// in kubernetes.yaml); the controllers listen on 9093.
const brokerPort = 9092

// Partition stops traffic from every node of from to every node of to,
// and back unless cut.OneWay; with cut.KeepQuorum only the broker
// listener's traffic (see netfault.Partition).
func (b *Backend) Partition(ctx context.Context, from, to []string, cut cluster.Cut) error {
	nodes, err := b.netNodes(ctx, append(append([]string(nil), from...), to...), true)
	if err != nil {
		return err
	}
	return netfault.Partition(ctx, netfault.Pick(nodes, from), netfault.Pick(nodes, to), cut, brokerPort)
}

// Loss drops percent of the packets on the node's pod interface, both
// ways, and replaces any loss set before; 0 removes it.
func (b *Backend) Loss(ctx context.Context, node string, percent int) error {
	nodes, err := b.netNodes(ctx, []string{node}, true)
	if err != nil {
		return err
	}
	return netfault.Loss(ctx, nodes[node], percent)
}

// Rate limits what the node's pod sends to bitsPerSec (tc in its faults
// container, see netfault.Rate); 0 removes the limit.
func (b *Backend) Rate(ctx context.Context, node string, bitsPerSec int64) error {
	nodes, err := b.netNodes(ctx, []string{node}, false)
	if err != nil {
		return err
	}
	return netfault.Rate(ctx, nodes[node], bitsPerSec)
}

// HealNetwork removes every partition, loss and rate limit of every
// running pod (not isolation: rejoin ends that).
func (b *Backend) HealNetwork(ctx context.Context) error {
	nodes, err := b.netNodes(ctx, nil, false)
	if err != nil {
		return err
	}
	var list []netfault.Node
	for _, n := range nodes {
		list = append(list, n)
	}
	return netfault.Heal(ctx, list)
}

// netNodes finds the named nodes (every running one when names is empty)
// and, with prepare, makes kafkabook's chains in their pods.
func (b *Backend) netNodes(ctx context.Context, names []string, prepare bool) (map[string]netfault.Node, error) {
	a, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	all, err := b.nodes(ctx, a)
	if err != nil {
		return nil, err
	}
	ns := all
	if len(names) > 0 {
		if ns, err = b.byName(all, names); err != nil {
			return nil, err
		}
	}
	out := map[string]netfault.Node{}
	for _, n := range ns {
		if !running(n.Pod, containerFaults) || n.Pod.Status.PodIP == "" {
			if len(names) == 0 {
				continue // no pod network: no rules
			}
			return nil, fmt.Errorf("%s: pod %s is not running, so it has no network to put rules in", n.Name, n.Pod.Name)
		}
		pod, name := n.Pod.Name, n.Name
		nn := netfault.Node{Name: name, IP: n.Pod.Status.PodIP,
			Exec: func(ctx context.Context, argv ...string) (string, error) {
				out, err := a.run(ctx, pod, containerFaults, argv...)
				if err != nil {
					return "", fmt.Errorf("in %s's pod: %s: %w", name, strings.Join(argv, " "), err)
				}
				return out, nil
			}}
		if prepare {
			if err := netfault.Prepare(ctx, nn); err != nil {
				return nil, err
			}
		}
		out[name] = nn
	}
	return out, nil
}
