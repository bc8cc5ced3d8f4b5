package netfault

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// The proof of a loss or a narrow link is the kernel's own count, read in
// the node's namespace: the loss chain holds a rule with no target before
// its DROP rule, so that the chain's counters give every packet the node
// sent or received beside those dropped (iptables -L -v -x); a token
// bucket counts what it sent, dropped and held back (tc -s qdisc). Both
// count from the moment the rule or the bucket was put in place: Loss
// makes the rules anew, Rate puts a new bucket in (a bucket replaced in
// place would keep the old one's counts). The counting rule goes in one
// iptables command before the DROP rule, so a packet or two of that
// instant is counted and not dropped: a 100% loss reads "20 of 22".

// State reads the loss and the rate limit in force on the node and what
// each did so far. A namespace without kafkabook's loss chain has no loss;
// one whose tc fails or shows no bucket has no rate limit.
func (n Node) State(ctx context.Context) (cluster.NetState, error) {
	st := cluster.NetState{Node: n.Name, Loss: cluster.LossState{Node: n.Name}, Rate: cluster.RateState{Node: n.Name}}
	if n.run(ctx, "-n", "-L", lossChain) == nil {
		out, err := n.Iptables(ctx, "-L", lossChain, "-v", "-x", "-n")
		if err != nil {
			return st, err
		}
		if st.Loss, err = parseLoss(out); err != nil {
			return st, fmt.Errorf("%s: %w", n.Name, err)
		}
		st.Loss.Node = n.Name
	}
	if out, err := n.Exec(ctx, "tc", "-s", "qdisc", "show"); err == nil {
		st.Rate, _ = parseRate(out)
		st.Rate.Node = n.Name
	}
	return st, nil
}

// parseLoss reads `iptables -L kbloss -v -x -n`: the counting rule's
// packets (no target) and the DROP rule's packets and probability (1 for
// a DROP of every packet). A chain without a DROP rule has no loss in
// force.
func parseLoss(out string) (cluster.LossState, error) {
	var s cluster.LossState
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		pkts, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue // the chain's title and the columns' header
		}
		if f[2] != "DROP" {
			s.Packets = pkts // the counting rule: its target column is empty
			continue
		}
		s.Dropped, s.Probability = pkts, 1
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "probability" {
				p, err := strconv.ParseFloat(f[i+1], 64)
				if err != nil {
					return s, fmt.Errorf("the loss rule's probability %q: %w", f[i+1], err)
				}
				s.Probability = math.Round(p*1e4) / 1e4 // the kernel keeps it as a 32-bit fraction
			}
		}
	}
	return s, nil
}

// parseRate reads `tc -s qdisc show`: the token bucket at the root of an
// interface, its rate as tc says it and the counts on the line after it
// ("Sent 2443250 bytes 1623 pkt (dropped 129, overlimits 2406 requeues
// 0)"); handle is the bucket's ("802b:"), for Rate. No bucket: the zero
// RateState.
func parseRate(out string) (s cluster.RateState, handle string) {
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "qdisc" || f[1] != "tbf" || !slices.Contains(f, "root") {
			continue
		}
		handle = f[2]
		s.Dev, s.Rate = after(f, "dev"), after(f, "rate")
		if i+1 < len(lines) {
			var requeues int64
			fmt.Sscanf(strings.TrimSpace(lines[i+1]), "Sent %d bytes %d pkt (dropped %d, overlimits %d requeues %d)",
				&s.Bytes, &s.Packets, &s.Dropped, &s.Overlimits, &requeues)
		}
		return s, handle
	}
	return cluster.RateState{}, ""
}

// after is the field after the word w, "" when there is none.
func after(f []string, w string) string {
	for i := 0; i+1 < len(f); i++ {
		if f[i] == w {
			return f[i+1]
		}
	}
	return ""
}

// NetStates reads the loss and rate limit in force on each named node
// (on every node that has a namespace now, when names is empty), from
// the node's kernel.
func (f Faults) NetStates(ctx context.Context, names []string) ([]cluster.NetState, error) {
	nodes, _, err := f.Nodes(ctx, names)
	if err != nil {
		return nil, err
	}
	list := Pick(nodes, names)
	if len(names) == 0 {
		list = f.list(nodes)
	}
	var out []cluster.NetState
	for _, n := range list {
		s, err := n.State(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
