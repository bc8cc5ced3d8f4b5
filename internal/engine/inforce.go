package engine

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/results"
)

// A fault that lasts a window proves itself by what it did while in
// force, counted by the cluster: a disk fault by the operations the
// layer refused or delayed, a loss by the packets the node's kernel
// dropped, a narrow link by what its token bucket sent and held back.
// The counts are read where the window ends: by the step that ends it
// (another step of the kind on the node, heal) before it changes
// anything, and at the run's end for those still in force (inForceAtEnd),
// before the heal between runs takes the counts away. The event that
// ends the window says what the fault did; one whose fault did nothing is
// unproven.

// window is a fault's state as the cluster counts it (cluster.DiskState,
// cluster.LossState, cluster.RateState).
type window interface {
	InForce() bool
	Landed() (said string, landed bool)
}

// ended says what the faults in force among states did, and whether one
// of them did nothing.
func ended[S window](states []S) (said []string, unproven bool) {
	for _, s := range states {
		if !s.InForce() {
			continue
		}
		w, ok := s.Landed()
		said = append(said, w)
		unproven = unproven || !ok
	}
	return said, unproven
}

// inForceAtEnd records, at the end of a run, what each fault still in
// force did, as the step that ends one does: the heal between runs is
// the backend's, and the evidence must not lose the proof with it. One
// event per kind: disk in force, loss in force, link in force.
func (n *nemesis) inForceAtEnd(ctx context.Context) {
	if disks, ok := n.opts.Backend.(cluster.Disks); ok {
		states, err := disks.DiskStates(ctx)
		if err != nil {
			n.con.printf("  reading the disks' faults: %v\n", err)
		}
		recordAtEnd(n, "disk in force", states)
	}
	if nets, ok := n.opts.Backend.(cluster.NetStates); ok {
		states, err := nets.NetStates(ctx, nil)
		if err != nil {
			n.con.printf("  reading the network's losses and rate limits: %v\n", err)
		}
		recordAtEnd(n, "loss in force", losses(states))
		recordAtEnd(n, "link in force", rates(states))
	}
}

// recordAtEnd records op with what the faults in force among states did,
// when one is.
func recordAtEnd[S window](n *nemesis, op string, states []S) {
	said, unproven := ended(states)
	if len(said) == 0 {
		return
	}
	for _, s := range said {
		n.con.printf("  at the run's end, %s\n", s)
	}
	n.record(results.Fault{At: time.Now().UTC(), Op: op, Nodes: []string{}, Observed: strings.Join(said, "; "), Unproven: unproven})
}

func losses(states []cluster.NetState) []cluster.LossState {
	out := make([]cluster.LossState, len(states))
	for i, s := range states {
		out[i] = s.Loss
	}
	return out
}

func rates(states []cluster.NetState) []cluster.RateState {
	out := make([]cluster.RateState, len(states))
	for i, s := range states {
		out[i] = s.Rate
	}
	return out
}

// netStates reads the loss and rate in force on nodes (on every node,
// when nodes is empty) from their kernels; nothing when the backend
// cannot read them.
func (n *nemesis) netStates(ctx context.Context, nodes []string) ([]cluster.NetState, error) {
	nets, ok := n.opts.Backend.(cluster.NetStates)
	if !ok {
		return nil, nil
	}
	return nets.NetStates(ctx, nodes)
}

// netLanded is what a loss, link --rate or heal step's nodes show: what
// the faults of the kind it ended did (kind picks the loss or the rate of
// a state; before, read as the step began), then what the kernel shows
// in force now (now, read after the step; nil for heal), which must be
// what the step asked. err is the reading of before's.
func (n *nemesis) netLanded(ctx context.Context, nodes []string, before []cluster.NetState, err error, kind func(cluster.NetState) window, now func(cluster.NetState) (string, bool)) (string, bool) {
	if _, ok := n.opts.Backend.(cluster.NetStates); !ok {
		return "", false
	}
	if err != nil {
		return "not read: " + err.Error(), false
	}
	var ws []window
	for _, s := range before {
		ws = append(ws, kind(s))
	}
	said, unproven := ended(ws)
	if now != nil {
		after, err := n.netStates(ctx, nodes)
		if err != nil {
			return strings.Join(append(said, "not read after the step: "+err.Error()), "; "), unproven
		}
		for _, s := range after {
			w, ok := now(s)
			said = append(said, w)
			unproven = unproven || !ok
		}
	}
	return strings.Join(said, "; "), unproven
}

func lossOf(s cluster.NetState) window { return s.Loss }
func rateOf(s cluster.NetState) window { return s.Rate }

// lossNow says the loss rule the kernel holds now, and whether it drops
// percent of the packets.
func lossNow(percent int) func(cluster.NetState) (string, bool) {
	return func(s cluster.NetState) (string, bool) {
		switch {
		case !s.Loss.InForce():
			return s.Node + "'s kernel holds no loss rule", percent == 0
		case percent == 0:
			return fmt.Sprintf("%s's kernel still drops %s of its packets", s.Node, s.Loss.Percent()), false
		}
		return fmt.Sprintf("%s's kernel now drops each packet with probability %g (iptables kbloss)", s.Node, s.Loss.Probability), s.Loss.Percent() == strconv.Itoa(percent)+"%"
	}
}

// rateNow says the token bucket the kernel holds now, and whether its
// rate, as tc reads it back, is bitsPerSec.
func rateNow(bitsPerSec int64) func(cluster.NetState) (string, bool) {
	return func(s cluster.NetState) (string, bool) {
		switch {
		case !s.Rate.InForce():
			return s.Node + "'s interface has no token bucket", bitsPerSec == 0
		case bitsPerSec == 0:
			return fmt.Sprintf("%s's %s still has a token bucket at %s", s.Node, s.Rate.Dev, s.Rate.Rate), false
		}
		read, ok := tcRate(s.Rate.Rate)
		return fmt.Sprintf("%s's %s now sends through a token bucket at %s (tc)", s.Node, s.Rate.Dev, s.Rate.Rate),
			ok && math.Abs(read-float64(bitsPerSec)) <= 0.01*float64(bitsPerSec)
	}
}

// tcRate reads a rate as tc prints it ("10Mbit", "1500Kbit", "8bit")
// in bits per second.
func tcRate(r string) (float64, bool) {
	units := []struct {
		suffix string
		mult   float64
	}{{"Gbit", 1e9}, {"Mbit", 1e6}, {"Kbit", 1e3}, {"bit", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(r, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			return v * u.mult, err == nil
		}
	}
	return 0, false
}

// healLanded says what the losses and rate limits a heal ended did
// (before, read as it began).
func (n *nemesis) healLanded(ctx context.Context, before []cluster.NetState, err error) (string, bool) {
	l, lu := n.netLanded(ctx, nil, before, err, lossOf, nil)
	if err != nil {
		return l, lu
	}
	r, ru := n.netLanded(ctx, nil, before, err, rateOf, nil)
	var said []string
	for _, s := range []string{l, r} {
		if s != "" {
			said = append(said, s)
		}
	}
	return strings.Join(said, "; "), lu || ru
}
