package cluster

import (
	"context"
	"fmt"
	"strconv"
)

// NetStates is implemented by backends that can read, from each node's
// own kernel, the packet loss and the rate limit in force on it and what
// they did so far: the counters of the loss rule, those of the token
// bucket. A loss proves itself only by the packets it dropped, so the
// step that ends one (another loss step on the node, heal) and the run's
// end read it before the heal between runs takes the counters away; a
// narrow link proves itself when the kernel reads the bucket back at its
// rate, and its counters say whether the traffic ever filled it.
type NetStates interface {
	// NetStates is the loss and rate of each named node (of every node
	// that has a network now, when names is empty), in the order named.
	NetStates(ctx context.Context, names []string) ([]NetState, error)
}

// NetState is what one node's kernel shows of the loss and the rate
// limit in force on it.
type NetState struct {
	Node string    `json:"node"`
	Loss LossState `json:"loss"`
	Rate RateState `json:"rate"`
}

// LossState is a node's loss rule as its kernel counts it: the share it
// drops (0: no loss in force), every packet the node sent or received
// since it was put in force, and those it dropped.
type LossState struct {
	Node        string  `json:"node"`
	Probability float64 `json:"probability"`
	Packets     int64   `json:"packets"`
	Dropped     int64   `json:"dropped"`
}

// InForce says a loss rule is in place.
func (s LossState) InForce() bool { return s.Probability > 0 }

// Percent is the share the rule drops, as a loss step writes it ("30%").
func (s LossState) Percent() string {
	return strconv.FormatFloat(s.Probability*100, 'f', -1, 64) + "%"
}

// Landed says, in words, what the loss did while in force, and whether
// it dropped anything: a loss that dropped no packet changed nothing.
func (s LossState) Landed() (said string, landed bool) {
	share := ""
	if s.Packets > 0 {
		share = fmt.Sprintf(" (%.1f%%)", 100*float64(s.Dropped)/float64(s.Packets))
	}
	if s.Dropped == 0 {
		return fmt.Sprintf("%s's loss of %s dropped none of the %d packets %s sent and received: the fault changed nothing", s.Node, s.Percent(), s.Packets, s.Node), false
	}
	return fmt.Sprintf("%s's loss of %s dropped %d of the %d packets %s sent and received%s", s.Node, s.Percent(), s.Dropped, s.Packets, s.Node, share), true
}

// RateState is a node's token bucket as its kernel reads it back: the
// interface it shapes and its rate as tc says it ("10Mbit"; "" when no
// bucket is in force), and what went through it since it was put in
// force: bytes and packets sent, packets dropped for want of tokens, and
// how many times the bucket held the queue back (tc's overlimits).
type RateState struct {
	Node       string `json:"node"`
	Dev        string `json:"dev,omitempty"`
	Rate       string `json:"rate,omitempty"`
	Bytes      int64  `json:"bytes"`
	Packets    int64  `json:"packets"`
	Dropped    int64  `json:"dropped"`
	Overlimits int64  `json:"overlimits"`
}

// InForce says a token bucket shapes the node's interface.
func (s RateState) InForce() bool { return s.Rate != "" }

// Landed says, in words, what went through the bucket while in force.
// The bucket is in the path of every packet the node sends, as the
// kernel showed when it was put in force; whether the traffic ever
// filled it is the workload's doing, said here, not a fault that failed
// to land, so landed is always true.
func (s RateState) Landed() (said string, landed bool) {
	link := fmt.Sprintf("%s's link (%s on %s) sent %d bytes in %d packets", s.Node, s.Rate, s.Dev, s.Bytes, s.Packets)
	if s.Overlimits == 0 && s.Dropped == 0 {
		return link + fmt.Sprintf(" and never held one back: %s never sent faster than %s", s.Node, s.Rate), true
	}
	return link + fmt.Sprintf("; the bucket held packets back %d times (overlimits) and dropped %d", s.Overlimits, s.Dropped), true
}
