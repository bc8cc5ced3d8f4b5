// Package netfault cuts and degrades the network between a cluster's
// nodes with iptables rules inside each node's own network namespace, for
// every backend that can run iptables there (the local backend's
// namespaces, the docker backend's containers). The rules live in two
// chains of kafkabook's own: kbcut holds partitions (a DROP per peer
// address and direction, limited to the broker port for a partition that
// keeps the quorum), kbloss the random drops of `loss` (the statistic
// match). Traffic between the host and a node never matches a partition
// rule, so clients still reach every node. The rules live and die with the
// namespaces; Heal flushes them. Rate limits a node's outbound traffic
// with tc's token bucket filter on its interface. A delay (these kernels
// have no tc netem) is a third chain, kbdelay, first in OUTPUT, that
// hands what the node sends to an NFQUEUE queue, and a process the
// backend runs in the namespace (internal/netdelay) that sends each
// packet on when it is due.
package netfault

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/netdelay"
)

const (
	cutChain   = "kbcut"
	lossChain  = "kbloss"
	delayChain = "kbdelay"
)

// chains are kafkabook's chains, as Heal flushes them and Rules lists them.
var chains = []string{cutChain, lossChain, delayChain}

// Node is one node's network namespace as the rules see it.
type Node struct {
	Name string
	IP   string // its address on the cluster's network
	// Exec runs a command (iptables, tc, ip) inside the node's network
	// namespace and returns its output; its error says which node and
	// command failed, with the command's output.
	Exec func(ctx context.Context, argv ...string) (string, error)
}

// Iptables runs `iptables -w ARGS` inside the node's namespace.
func (n Node) Iptables(ctx context.Context, args ...string) (string, error) {
	return n.Exec(ctx, append([]string{"iptables", "-w"}, args...)...)
}

// Pick is the nodes of names, in order, out of a backend's nodes by name.
func Pick(nodes map[string]Node, names []string) []Node {
	out := make([]Node, 0, len(names))
	for _, n := range names {
		out = append(out, nodes[n])
	}
	return out
}

func (n Node) run(ctx context.Context, args ...string) error {
	_, err := n.Iptables(ctx, args...)
	return err
}

// Prepare creates kafkabook's chains in the node's namespace and hooks them
// into INPUT and OUTPUT once; the loss and delay chains spare loopback, so
// a node still reaches itself. The delay chain is hooked last, so first
// in OUTPUT: a packet is held before a partition or a loss meets it, and
// meets them when its copy is sent (once, as a packet on a slow link
// would).
func Prepare(ctx context.Context, n Node) error {
	for _, chain := range chains {
		if n.run(ctx, "-n", "-L", chain) != nil {
			if err := n.run(ctx, "-N", chain); err != nil {
				return err
			}
		}
	}
	hooks := [][]string{
		{"INPUT", "-j", cutChain},
		{"OUTPUT", "-j", cutChain},
		{"INPUT", "!", "-i", "lo", "-j", lossChain},
		{"OUTPUT", "!", "-o", "lo", "-j", lossChain},
		{"OUTPUT", "!", "-o", "lo", "-j", delayChain},
	}
	for _, h := range hooks {
		if n.run(ctx, append([]string{"-C"}, h...)...) != nil {
			if err := n.run(ctx, append([]string{"-I"}, h...)...); err != nil {
				return err
			}
		}
	}
	return nil
}

// Partition stops traffic from every node of from to every node of to,
// and back unless cut.OneWay. With cut.KeepQuorum only packets to or from
// brokerPort are dropped (a node's connections to a peer's broker listener
// and that listener's answers), so the controller listeners, on their own
// port, still form one quorum across the cut. The nodes must be prepared.
func Partition(ctx context.Context, from, to []Node, cut cluster.Cut, brokerPort int) error {
	// ports are the rule matches of what is cut: everything, or TCP to
	// and from the broker listener (ephemeral ports never take its
	// number: they start above 32767).
	ports := [][]string{nil}
	if cut.KeepQuorum {
		bp := strconv.Itoa(brokerPort)
		ports = [][]string{{"-p", "tcp", "--dport", bp}, {"-p", "tcp", "--sport", bp}}
	}
	drop := func(a, z Node) error {
		// a's packets to z are dropped as they leave a and, should one
		// get through, as they arrive at z.
		for _, match := range ports {
			out := append(append([]string{"-A", cutChain, "-d", z.IP}, match...), "-j", "DROP")
			if err := a.run(ctx, out...); err != nil {
				return err
			}
			in := append(append([]string{"-A", cutChain, "-s", a.IP}, match...), "-j", "DROP")
			if err := z.run(ctx, in...); err != nil {
				return err
			}
		}
		return nil
	}
	for _, f := range from {
		for _, t := range to {
			if f.Name == t.Name {
				return fmt.Errorf("partition: %s is on both sides", f.Name)
			}
			if err := drop(f, t); err != nil {
				return err
			}
			if !cut.OneWay {
				if err := drop(t, f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Loss drops percent of the packets on the node's links, both ways, and
// replaces any loss set before (and its counts, counters.go); 0 removes
// it. The node must be prepared.
func Loss(ctx context.Context, n Node, percent int) error {
	if percent < 0 || percent > 100 {
		return fmt.Errorf("loss %s %d%%: want 0%% to 100%%", n.Name, percent)
	}
	if err := n.run(ctx, "-F", lossChain); err != nil {
		return err
	}
	if percent == 0 {
		return nil
	}
	// A rule without a target counts every packet, so that the chain's
	// counters say how many the DROP rule after it had to choose from.
	if err := n.run(ctx, "-A", lossChain); err != nil {
		return err
	}
	rule := []string{"-A", lossChain, "-j", "DROP"}
	if percent < 100 {
		rule = []string{"-A", lossChain, "-m", "statistic", "--mode", "random",
			"--probability", fmt.Sprintf("%.4f", float64(percent)/100), "-j", "DROP"}
	}
	return n.run(ctx, rule...)
}

// Rate limits what the node sends, to other nodes and to clients alike,
// to bitsPerSec with a token bucket (tc tbf) on its interface, and
// replaces any rate set before; 0 removes it. What the node receives is
// not limited: a slow follower is its leader's narrow link. The bucket
// holds 10 ms of traffic (at least 10 full frames) and a packet waits
// at most 100 ms for tokens before it is dropped: a sender faster than
// the rate meets both, the wait and then drops (the bucket's counters,
// which the step that ends the limit reads, say how many), and TCP's
// congestion control slows it to the rate.
func Rate(ctx context.Context, n Node, bitsPerSec int64) error {
	if bitsPerSec < 0 {
		return fmt.Errorf("rate %s %d bit/s: want 0 (no limit) or more", n.Name, bitsPerSec)
	}
	if bitsPerSec == 0 {
		return n.unshape(ctx)
	}
	dev, err := n.device(ctx)
	if err != nil {
		return err
	}
	burst := max(bitsPerSec/8/100, 15000)
	// A bucket under a handle of its own replaces the one before in one
	// step, with counts of its own: one replaced under the same handle
	// would keep counting for both.
	handle := "1:"
	if out, err := n.Exec(ctx, "tc", "qdisc", "show", "dev", dev); err == nil {
		if _, h := parseRate(out); h == handle {
			handle = "2:"
		}
	}
	_, err = n.Exec(ctx, "tc", "qdisc", "replace", "dev", dev, "root", "handle", handle, "tbf",
		"rate", fmt.Sprintf("%dbit", bitsPerSec), "burst", strconv.FormatInt(burst, 10), "latency", "100ms")
	return err
}

// QueueDelay hands what n sends (to the nodes of to only, when there are
// some) to the delayer's queue, and replaces what it handed before; the
// delayer's own copies, which carry netdelay.Mark, pass. --queue-bypass
// lets the packets through when no delayer is bound to the queue (one
// that died): a delay that fails heals the link rather than cutting it.
// Bind the delayer first, so that the first packet is delayed too. The
// node must be prepared.
func QueueDelay(ctx context.Context, n Node, to []Node) error {
	if err := Unqueue(ctx, n); err != nil {
		return err
	}
	if err := n.run(ctx, "-A", delayChain, "-m", "mark", "--mark", strconv.Itoa(netdelay.Mark), "-j", "RETURN"); err != nil {
		return err
	}
	queue := []string{"-j", "NFQUEUE", "--queue-num", strconv.Itoa(netdelay.Queue), "--queue-bypass"}
	if len(to) == 0 {
		return n.run(ctx, append([]string{"-A", delayChain}, queue...)...)
	}
	for _, z := range to {
		if z.Name == n.Name {
			return fmt.Errorf("link %s --to %s: a node's traffic to itself is not delayed", n.Name, z.Name)
		}
		if err := n.run(ctx, append([]string{"-A", delayChain, "-d", z.IP}, queue...)...); err != nil {
			return err
		}
	}
	return nil
}

// Unqueue stops handing what n sends to the delayer's queue; a node
// whose chain was never made has nothing to stop.
func Unqueue(ctx context.Context, n Node) error {
	if n.run(ctx, "-n", "-L", delayChain) != nil {
		return nil
	}
	return n.run(ctx, "-F", delayChain)
}

// device is the name of the node's interface on the cluster's network:
// the one that holds its address.
func (n Node) device(ctx context.Context) (string, error) {
	out, err := n.Exec(ctx, "ip", "-o", "-4", "addr", "show")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[2] == "inet" && strings.HasPrefix(f[3], n.IP+"/") {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("%s: no interface holds %s", n.Name, n.IP)
}

// shaping is the node's rate limit, in one call: the device that has a
// token bucket at its root and tc's line for it ("qdisc tbf 8001: dev eth0
// root ... rate 8Mbit ..."); "" when there is none or the namespace has no
// tc, and then no rate can have been set. Heal asks it of every node on
// every heal, so it costs one command, not a device lookup too.
func (n Node) shaping(ctx context.Context) (dev, line string) {
	out, err := n.Exec(ctx, "tc", "qdisc", "show")
	if err != nil {
		return "", ""
	}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 6 && f[1] == "tbf" && f[3] == "dev" && f[5] == "root" {
			return f[4], strings.TrimSpace(l)
		}
	}
	return "", ""
}

// unshape removes the node's rate limit, if it has one.
func (n Node) unshape(ctx context.Context) error {
	dev, _ := n.shaping(ctx)
	if dev == "" {
		return nil
	}
	_, err := n.Exec(ctx, "tc", "qdisc", "del", "dev", dev, "root")
	return err
}

// Heal flushes every partition, loss and delay rule of the nodes and
// removes their rate limits (the backend stops the delayers); a node whose chains were never made and that has no
// limit has nothing to heal.
func Heal(ctx context.Context, nodes []Node) error {
	for _, n := range nodes {
		if err := n.unshape(ctx); err != nil {
			return err
		}
		for _, chain := range chains {
			if n.run(ctx, "-n", "-L", chain) != nil {
				continue // never made (or no iptables here): nothing to heal
			}
			if err := n.run(ctx, "-F", chain); err != nil {
				return err
			}
		}
	}
	return nil
}

// Rules lists the rules in place, by node name: empty when the network is
// whole.
func Rules(ctx context.Context, nodes []Node) map[string][]string {
	out := map[string][]string{}
	for _, n := range nodes {
		if _, q := n.shaping(ctx); q != "" {
			out[n.Name] = append(out[n.Name], "tc: "+q)
		}
		for _, chain := range chains {
			rules, err := n.Iptables(ctx, "-S", chain)
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
	return out
}
