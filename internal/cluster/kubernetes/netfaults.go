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

var (
	_ cluster.NetFaults = (*Backend)(nil)
	_ cluster.NetStates = (*Backend)(nil)
)

// brokerPort is the listener of clients and of the other brokers (BROKER
// in kubernetes.yaml); the controllers listen on 9093.
const brokerPort = 9092

// net is the backend's network faults (Partition, Loss, Rate,
// HealNetwork), package netfault's over the pods' namespaces.
func (b *Backend) net() netfault.Faults {
	return netfault.Faults{Nodes: func(ctx context.Context, names []string) (map[string]netfault.Node, int, error) {
		nodes, err := b.netNodes(ctx, names)
		return nodes, brokerPort, err
	}}
}

// netNodes finds the named nodes (every running one when names is empty).
func (b *Backend) netNodes(ctx context.Context, names []string) (map[string]netfault.Node, error) {
	a, all, err := b.clusterNodes(ctx)
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
		out[name] = nn
	}
	return out, nil
}
