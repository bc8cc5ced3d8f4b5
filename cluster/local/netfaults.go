package local

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/kafkabook/kafkabook/cluster"
)

// Network faults finer than isolation live in iptables rules inside the
// nodes' own network namespaces, in two chains of kafkabook's own:
// kbcut holds partitions (a DROP per peer address and direction, limited
// to the broker port for a partition that keeps the quorum), kbloss
// the random drops of `loss` (the statistic match). Traffic between the
// host and a node never matches a partition rule, so clients still reach
// every node. The rules live and die with the namespaces: `down` removes
// them with the namespaces, also after a crash; HealNetwork flushes them.
// Delay is not offered: these kernels have no tc netem.
const (
	cutChain  = "kbcut"
	lossChain = "kbloss"
)

var _ cluster.NetFaults = (*Backend)(nil)

// Partition stops traffic from every node of from to every node of to,
// and back unless cut.OneWay. With cut.KeepQuorum only packets to or from
// the broker listener's port are dropped (a node's broker connections to
// a peer's broker port and that port's answers), so the controller
// listeners, on their own port, still form one quorum across the cut.
func (b *Backend) Partition(ctx context.Context, from, to []string, cut cluster.Cut) error {
	st, nodes, err := b.netNodes(ctx, append(append([]string(nil), from...), to...))
	if err != nil {
		return err
	}
	// ports are the rule matches of what is cut: everything, or TCP to
	// and from the broker listener (ephemeral ports never take its
	// number: they start above 32767).
	ports := [][]string{nil}
	if cut.KeepQuorum {
		bp := strconv.Itoa(brokerPort)
		ports = [][]string{{"-p", "tcp", "--dport", bp}, {"-p", "tcp", "--sport", bp}}
	}
	drop := func(a, z nodeState) error {
		// a's packets to z are dropped as they leave a and, should one
		// get through, as they arrive at z.
		for _, match := range ports {
			out := append(append([]string{"-A", cutChain, "-d", st.Network.nodeIP(z.ID).String()}, match...), "-j", "DROP")
			if err := nsIptables(ctx, a.NS, out...); err != nil {
				return err
			}
			in := append(append([]string{"-A", cutChain, "-s", st.Network.nodeIP(a.ID).String()}, match...), "-j", "DROP")
			if err := nsIptables(ctx, z.NS, in...); err != nil {
				return err
			}
		}
		return nil
	}
	for _, f := range from {
		for _, t := range to {
			if f == t {
				return fmt.Errorf("partition: %s is on both sides", f)
			}
			if err := drop(nodes[f], nodes[t]); err != nil {
				return err
			}
			if !cut.OneWay {
				if err := drop(nodes[t], nodes[f]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Loss drops percent of the packets on the node's links, both ways, and
// replaces any loss set before; 0 removes it.
func (b *Backend) Loss(ctx context.Context, node string, percent int) error {
	if percent < 0 || percent > 100 {
		return fmt.Errorf("loss %s %d%%: want 0%% to 100%%", node, percent)
	}
	_, nodes, err := b.netNodes(ctx, []string{node})
	if err != nil {
		return err
	}
	ns := nodes[node].NS
	if err := nsIptables(ctx, ns, "-F", lossChain); err != nil {
		return err
	}
	if percent == 0 {
		return nil
	}
	rule := []string{"-A", lossChain, "-j", "DROP"}
	if percent < 100 {
		rule = []string{"-A", lossChain, "-m", "statistic", "--mode", "random",
			"--probability", fmt.Sprintf("%.4f", float64(percent)/100), "-j", "DROP"}
	}
	return nsIptables(ctx, ns, rule...)
}

// HealNetwork removes every partition and loss of every node that runs.
func (b *Backend) HealNetwork(ctx context.Context) error {
	st, ok, err := b.load()
	if err != nil || !ok {
		return err
	}
	for _, n := range st.Nodes {
		if !nsExists(n.NS) {
			continue
		}
		for _, chain := range []string{cutChain, lossChain} {
			if nsIptables(ctx, n.NS, "-n", "-L", chain) != nil {
				continue // never made (or no iptables here): nothing to heal
			}
			if err := nsIptables(ctx, n.NS, "-F", chain); err != nil {
				return err
			}
		}
	}
	return nil
}

// NetworkFaults lists the rules in place, by node, for status and for
// healing: empty when the network is whole.
func (b *Backend) NetworkFaults(ctx context.Context) (map[string][]string, error) {
	st, ok, err := b.load()
	if err != nil || !ok {
		return nil, err
	}
	out := map[string][]string{}
	for _, n := range st.Nodes {
		if !nsExists(n.NS) {
			continue
		}
		for _, chain := range []string{cutChain, lossChain} {
			rules, err := nsIptablesOut(ctx, n.NS, "-S", chain)
			if err != nil {
				continue // no chain yet: no rules
			}
			for _, r := range strings.Split(strings.TrimSpace(rules), "\n") {
				if strings.HasPrefix(r, "-A ") {
					out[n.Name] = append(out[n.Name], r)
				}
			}
		}
	}
	return out, nil
}

// netNodes checks the names and prepares the chains in their namespaces.
func (b *Backend) netNodes(ctx context.Context, names []string) (state, map[string]nodeState, error) {
	if err := needRoot("network faults"); err != nil {
		return state{}, nil, err
	}
	st, ok, err := b.load()
	if err != nil {
		return st, nil, err
	}
	if !ok {
		return st, nil, fmt.Errorf("%w: no cluster %q is up", cluster.ErrNotFound, b.name)
	}
	nodes := map[string]nodeState{}
	for _, name := range names {
		var found bool
		for _, n := range st.Nodes {
			if n.Name == name {
				nodes[name], found = n, true
			}
		}
		if !found {
			return st, nil, fmt.Errorf("no node %s in cluster %s", name, b.name)
		}
		if err := ensureChains(ctx, nodes[name].NS); err != nil {
			return st, nil, err
		}
	}
	return st, nodes, nil
}

// ensureChains creates kafkabook's chains in a namespace and hooks them
// into INPUT and OUTPUT once; the loss chain spares loopback, so a node
// still reaches itself.
func ensureChains(ctx context.Context, ns string) error {
	for _, chain := range []string{cutChain, lossChain} {
		if nsIptables(ctx, ns, "-n", "-L", chain) != nil {
			if err := nsIptables(ctx, ns, "-N", chain); err != nil {
				return err
			}
		}
	}
	hooks := [][]string{
		{"INPUT", "-j", cutChain},
		{"OUTPUT", "-j", cutChain},
		{"INPUT", "!", "-i", "lo", "-j", lossChain},
		{"OUTPUT", "!", "-o", "lo", "-j", lossChain},
	}
	for _, h := range hooks {
		if nsIptables(ctx, ns, append([]string{"-C"}, h...)...) != nil {
			if err := nsIptables(ctx, ns, append([]string{"-I"}, h...)...); err != nil {
				return err
			}
		}
	}
	return nil
}

// nsIptables runs iptables inside the namespace ns.
func nsIptables(ctx context.Context, ns string, args ...string) error {
	_, err := nsIptablesOut(ctx, ns, args...)
	return err
}

func nsIptablesOut(ctx context.Context, ns string, args ...string) (string, error) {
	full := append([]string{"netns", "exec", ns, "iptables", "-w"}, args...)
	out, err := exec.CommandContext(ctx, "ip", full...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("iptables in %s: %s: %v: %s", ns, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}
