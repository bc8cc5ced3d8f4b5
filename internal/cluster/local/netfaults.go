package local

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/netfault"
)

// Network faults finer than isolation are iptables rules inside the nodes'
// own network namespaces (package netfault). They live and die with the
// namespaces: `down` removes them with the namespaces, also after a crash;
// HealNetwork flushes them. The namespaces outlive a node's broker, so a
// partition holds across kill and start. The faults themselves are
// netfault.Faults over netNodes, embedded in Backend.

var (
	_ cluster.NetFaults = (*Backend)(nil)
	_ cluster.NetStates = (*Backend)(nil)
)

// NetworkFaults lists the rules in place, by node, for status and for
// healing: empty when the network is whole.
func (b *Backend) NetworkFaults(ctx context.Context) (map[string][]string, error) {
	return b.Rules(ctx)
}

// netNodes are the named nodes' namespaces (netfault.Nodes); without
// names, those of the nodes whose namespaces exist.
func (b *Backend) netNodes(ctx context.Context, names []string) (map[string]netfault.Node, int, error) {
	st, ok, err := b.load()
	if err != nil {
		return nil, 0, err
	}
	nodes := map[string]netfault.Node{}
	if len(names) == 0 {
		if ok {
			for _, n := range st.Nodes {
				if nsExists(n.NS) {
					nodes[n.Name] = netNode(st, n)
				}
			}
		}
		return nodes, brokerPort, nil
	}
	if err := needRoot("network faults"); err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, 0, fmt.Errorf("%w: no cluster %q is up", cluster.ErrNotFound, b.name)
	}
	for _, name := range names {
		i := slices.IndexFunc(st.Nodes, func(n nodeState) bool { return n.Name == name })
		if i < 0 {
			return nil, 0, fmt.Errorf("no node %s in cluster %s", name, b.name)
		}
		nodes[name] = netNode(st, st.Nodes[i])
	}
	return nodes, brokerPort, nil
}

// netNode is a node's namespace for package netfault.
func netNode(st state, n nodeState) netfault.Node {
	return netfault.Node{
		Name: n.Name, IP: st.Network.nodeIP(n.ID).String(),
		Exec: func(ctx context.Context, argv ...string) (string, error) { return nsExec(ctx, n.NS, argv...) },
	}
}

// nsExec runs a command of the host (iptables, tc) inside the namespace ns.
func nsExec(ctx context.Context, ns string, argv ...string) (string, error) {
	full := append([]string{"netns", "exec", ns}, argv...)
	out, err := exec.CommandContext(ctx, "ip", full...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("in %s: %s: %v: %s", ns, strings.Join(argv, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}
