package runbook

import (
	"slices"
	"strconv"
	"strings"
)

// The network faults finer than isolate: partition, heal, loss.

const (
	OpPartition Op = "partition"
	OpHeal      Op = "heal"
	OpLoss      Op = "loss"
)

// Partition cuts the network between two sides: partition A | B.
type Partition struct {
	Left, Right []string // node names
	OneWay      bool
	KeepQuorum  bool
}

// Heal removes every partition, packet loss and narrow link: heal.
type Heal struct{}

// Loss drops a share of a node's packets: loss NODE PERCENT.
type Loss struct {
	Node    Target
	Percent int // 0..100
}

func (Partition) action() {}

func (Heal) action() {}

func (Loss) action() {}

var partitionDirective = &Directive{
	Op:      OpPartition,
	build:   buildPartition,
	check:   checkPartition,
	Name:    "partition",
	Summary: "Cut the network between two groups of nodes, written NODE... | NODE...; clients still reach every node. Undone by heal.",
	Args:    []ArgSpec{{Name: "NODE... | NODE...", Kind: KindSide, Many: true}},
	Flags: []FlagSpec{
		{Name: "one-way", Kind: KindBool,
			Help: "Drop only the traffic from the left side to the right side (TCP needs both ways, so connections still fail; datagrams the other way pass)."},
		{Name: "keep-quorum", Kind: KindBool,
			Help: "Cut only the broker listeners (replication fetches and other broker-to-broker requests) and let the controller quorum talk across the cut: followers fall out of the ISR while the leader can still shrink it."},
	},
	Example: `partition k1 | k2 k3 --keep-quorum`,
	Lands: []FaultKind{
		{Op: "partition", Opens: "partitioned", EndedBy: []string{"heal"}, Away: true, Phrase: "network partition ", Repair: "heal", Observed: "a TCP handshake from a node of the left side with the broker port of a node of the right side gets no answer within 250 ms (local backend); an answer makes it unproven", Cannot: map[string]string{"external": "applies only the node faults of its cluster file"}},
	},
	Hurts: true,
}

var healDirective = &Directive{
	Op:      OpHeal,
	build:   buildHeal,
	Name:    "heal",
	Summary: "Remove every partition, packet loss and narrow link (not isolation: that is rejoin).",
	Example: `heal`,
	Lands: []FaultKind{
		{Op: "heal", Phrase: "heal of the network"},
	},
	Hurts: true,
}

var lossDirective = &Directive{
	Op:      OpLoss,
	build:   buildLoss,
	Name:    "loss",
	Summary: "Drop this share of the packets on the node's links, both ways, until loss NODE 0%. Delay is not available: these kernels have no tc netem.",
	Args:    []ArgSpec{{Name: "NODE", Kind: KindNode}, {Name: "PERCENT", Kind: KindPercent}},
	Example: `loss k2 30%
sleep 2s
heal`,
	Lands: []FaultKind{
		{Op: "loss", Opens: "lossy", EndedBy: []string{"heal"}, Phrase: "loss ", Off: "0%", Repair: "heal",
			Observed: "the rule read back from the node's kernel at the step, then, where the loss ends (loss NODE 0%, heal, the run's end), the packets its rule dropped of those it counted (iptables' counters); a loss that dropped nothing, or a rule not at the step's share, makes it unproven",
			Cannot:   map[string]string{"external": "applies only the node faults of its cluster file"}},
		{Op: "loss in force", Phrase: "losses at the run's end"},
	},
	Hurts: true,
}

func buildPartition(st *Step) Action {
	left, right, _ := st.sides()
	return Partition{Left: left, Right: right, OneWay: st.flagBool("one-way"), KeepQuorum: st.flagBool("keep-quorum")}
}

func buildHeal(st *Step) Action { return Heal{} }

func buildLoss(st *Step) Action {
	n, _ := strconv.Atoi(strings.TrimSuffix(st.arg(1).Text, "%"))
	return Loss{Node: st.arg(0).Target(), Percent: n}
}

// checkPartition: one | with nodes on both sides, and no node on both.
func checkPartition(c *checker, st *Step, topic string, tp Pos) {
	left, right, ok := st.sides()
	if !ok {
		c.errorf(st.Pos, "partition needs two sides: NODE... | NODE..., like partition k1 | k2 k3")
		return
	}
	for _, l := range left {
		if slices.Contains(right, l) {
			c.errorf(st.Pos, "partition: %s is on both sides", l)
		}
	}
}
