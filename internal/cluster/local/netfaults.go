package local

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/netfault"
)

// Network faults finer than isolation are iptables rules inside the nodes'
// own network namespaces (package netfault). They live and die with the
// namespaces: `down` removes them with the namespaces, also after a crash;
// HealNetwork flushes them. The namespaces outlive a node's broker, so a
// partition holds across kill and start.

var _ cluster.NetFaults = (*Backend)(nil)

// Partition stops traffic from every node of from to every node of to,
// and back unless cut.OneWay; with cut.KeepQuorum only the broker
// listener's traffic (see netfault.Partition).
func (b *Backend) Partition(ctx context.Context, from, to []string, cut cluster.Cut) error {
	nodes, err := b.netNodes(ctx, append(append([]string(nil), from...), to...))
	if err != nil {
		return err
	}
	return netfault.Partition(ctx, pick(nodes, from), pick(nodes, to), cut, brokerPort)
}

// Loss drops percent of the packets on the node's links, both ways, and
// replaces any loss set before; 0 removes it.
func (b *Backend) Loss(ctx context.Context, node string, percent int) error {
	nodes, err := b.netNodes(ctx, []string{node})
	if err != nil {
		return err
	}
	return netfault.Loss(ctx, nodes[node], percent)
}

// HealNetwork removes every partition and loss of every node that runs.
func (b *Backend) HealNetwork(ctx context.Context) error {
	nodes, err := b.liveNetNodes()
	if err != nil {
		return err
	}
	return netfault.Heal(ctx, nodes)
}

// NetworkFaults lists the rules in place, by node, for status and for
// healing: empty when the network is whole.
func (b *Backend) NetworkFaults(ctx context.Context) (map[string][]string, error) {
	nodes, err := b.liveNetNodes()
	if err != nil {
		return nil, err
	}
	return netfault.Rules(ctx, nodes), nil
}

// liveNetNodes are the nodes whose namespaces exist.
func (b *Backend) liveNetNodes() ([]netfault.Node, error) {
	st, ok, err := b.load()
	if err != nil || !ok {
		return nil, err
	}
	var out []netfault.Node
	for _, n := range st.Nodes {
		if nsExists(n.NS) {
			out = append(out, netNode(st, n))
		}
	}
	return out, nil
}

// netNodes checks the names and prepares the chains in their namespaces.
func (b *Backend) netNodes(ctx context.Context, names []string) (map[string]netfault.Node, error) {
	if err := needRoot("network faults"); err != nil {
		return nil, err
	}
	st, ok, err := b.load()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: no cluster %q is up", cluster.ErrNotFound, b.name)
	}
	nodes := map[string]netfault.Node{}
	for _, name := range names {
		var found bool
		for _, n := range st.Nodes {
			if n.Name == name {
				nodes[name], found = netNode(st, n), true
			}
		}
		if !found {
			return nil, fmt.Errorf("no node %s in cluster %s", name, b.name)
		}
		if err := netfault.Prepare(ctx, nodes[name]); err != nil {
			return nil, err
		}
	}
	return nodes, nil
}

// netNode is a node's namespace for package netfault.
func netNode(st state, n nodeState) netfault.Node {
	return netfault.Node{
		Name: n.Name, IP: st.Network.nodeIP(n.ID).String(),
		Iptables: func(ctx context.Context, args ...string) (string, error) { return nsIptablesOut(ctx, n.NS, args...) },
	}
}

// pick returns the nodes of names, in order.
func pick(nodes map[string]netfault.Node, names []string) []netfault.Node {
	out := make([]netfault.Node, 0, len(names))
	for _, n := range names {
		out = append(out, nodes[n])
	}
	return out
}

// nsIptablesOut runs iptables inside the namespace ns.
func nsIptablesOut(ctx context.Context, ns string, args ...string) (string, error) {
	full := append([]string{"netns", "exec", ns, "iptables", "-w"}, args...)
	out, err := exec.CommandContext(ctx, "ip", full...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("iptables in %s: %s: %v: %s", ns, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}
