package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// The nemesis is the part of a run that hurts the cluster and repairs it,
// as Jepsen's nemesis and etcd's functional tester's failure cases do:
// node faults, network faults and power loss through the backend, each
// recorded in the evidence as it lands. It knows nothing of clients or
// reads; a node target (leader(T)) is resolved when the step runs, by
// asking the cluster (env.nodes).
type nemesis struct {
	*env

	mu     sync.Mutex
	downBy map[string]runbook.Step // nodes the runbook took down, by the step that did it
	// reassigning are the reassignments reassign started, by topic
	// label, for wait reassigned.
	reassigning map[string]reassigning
}

// record writes a fault event of the run: when it landed, on which nodes,
// by which line.
func (n *nemesis) record(f results.Fault) { n.ev.Emit(results.KindFault, n.num, f) }

// targets resolves the targets now, each node once, in order.
func (n *nemesis) targets(ctx context.Context, ts []runbook.Target) ([]string, error) {
	var nodes []string
	for _, t := range ts {
		ns, err := n.nodes(ctx, t)
		if err != nil {
			return nil, err
		}
		for _, name := range ns {
			if !slices.Contains(nodes, name) {
				nodes = append(nodes, name)
			}
		}
	}
	return nodes, nil
}

// left notes the state a step left nodes in: down (by s, for waits that
// need them back) or running again.
func (n *nemesis) left(nodes []string, st cluster.State, s runbook.Step) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, name := range nodes {
		switch {
		case !st.Up():
			n.downBy[name] = s
		case st == cluster.Running:
			delete(n.downBy, name)
		}
	}
}

// tookDown is the step that took node down, if the runbook did.
func (n *nemesis) tookDown(node string) (runbook.Step, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	s, ok := n.downBy[node]
	return s, ok
}

// net is the backend's finer network faults, or an error naming the
// backend that cannot inject them.
func (n *nemesis) net() (cluster.NetFaults, error) {
	nf, ok := n.opts.Backend.(cluster.NetFaults)
	if !ok {
		return nil, fmt.Errorf("this cluster backend cannot partition the network or drop packets")
	}
	return nf, nil
}

var _ = handles(fault, runbook.OpKill, runbook.OpStop, runbook.OpStart, runbook.OpPause, runbook.OpResume, runbook.OpIsolate, runbook.OpRejoin)

// fault: kill|stop|start|pause|resume|isolate|rejoin NODE...
// Targets are resolved when the step runs: leader(T) is partition 0's
// leader at that moment.
func fault(ctx context.Context, n *nemesis, s runbook.Step, f runbook.Fault, log *stepLog) error {
	op := cluster.Op(f.Op) // a fault directive is named as the backend's operation
	if _, ok := cluster.FaultOf(op); !ok {
		return fmt.Errorf("%s is not a fault of the cluster backend", s.Name)
	}
	nodes, err := n.targets(ctx, f.Targets)
	if err != nil {
		return err
	}
	err = cluster.Apply(ctx, n.opts.Backend, op, nodes, log.progress, n.landed(ctx, s, "", log))
	if err != nil {
		return err
	}
	log.line("%s %s", op, strings.Join(nodes, " "))
	return nil
}

// landed records each node op of step s as it lands, with what the nodes
// show of it when the backend can read that (cluster.Observer), and the
// state it leaves the nodes in; kafka is the release a start put them on,
// when the step chose one.
func (n *nemesis) landed(ctx context.Context, s runbook.Step, kafka string, log *stepLog) func(cluster.Op, []string, time.Time) {
	return func(op cluster.Op, nodes []string, at time.Time) {
		f := results.Fault{At: at, Op: string(op), Nodes: nodes, Pos: s.Pos.String()}
		if op == cluster.Start {
			f.Kafka = kafka
		}
		if o, ok := n.opts.Backend.(cluster.Observer); ok {
			said, landed, err := o.Observe(ctx, op, nodes)
			switch {
			case err != nil:
				f.Observed = "not read: " + err.Error()
			case !landed:
				f.Observed, f.Unproven = said, true
				log.line("%s %s did not land as far as the nodes show: %s", op, strings.Join(nodes, " "), said)
			default:
				f.Observed = said
			}
		}
		n.record(f)
		row, _ := cluster.FaultOf(op)
		n.left(nodes, row.Leaves, s)
	}
}

var _ = handles(partition, runbook.OpPartition)

// partition: partition NODE... | NODE... [--one-way] [--keep-quorum]
//
// The fault event names the partition as written, flags included
// ("k1 | k2 k3 --keep-quorum"), so that the report's shading says which
// traffic was cut.
func partition(ctx context.Context, n *nemesis, s runbook.Step, p runbook.Partition, log *stepLog) error {
	nf, err := n.net()
	if err != nil {
		return err
	}
	left, right := p.Left, p.Right
	cut := cluster.Cut{OneWay: p.OneWay, KeepQuorum: p.KeepQuorum}
	at := time.Now().UTC()
	if err := nf.Partition(ctx, left, right, cut); err != nil {
		return err
	}
	nodes := append(append(slices.Clone(left), "|"), right...)
	written := slices.Clone(nodes)
	how := "both ways"
	if cut.OneWay {
		how = "from the left side to the right only"
		written = append(written, "--one-way")
	}
	if cut.KeepQuorum {
		how += ", broker listeners only: the controller quorum still talks across it"
		written = append(written, "--keep-quorum")
	}
	f := results.Fault{At: at, Op: "partition", Nodes: written, Pos: s.Pos.String()}
	f.Observed, f.Unproven = n.acrossCut(ctx, left[0], right[0])
	n.record(f)
	log.line("partition %s (%s; clients still reach every node)", strings.Join(nodes, " "), how)
	if f.Observed != "" {
		log.line("  %s", f.Observed)
	}
	return nil
}

// acrossCut reads a partition from the network itself, where the backend
// can (cluster.Delayer's Handshakes): a TCP handshake from one node of
// the left side with the broker port of one of the right side, which a
// cut must stop. unproven is true when it was answered.
func (n *nemesis) acrossCut(ctx context.Context, from, to string) (observed string, unproven bool) {
	d, ok := n.opts.Backend.(cluster.Delayer)
	if !ok {
		return "", false
	}
	ctx, cancel := context.WithTimeout(ctx, cluster.CutProbe) // across a cut nothing answers: the probe ends by this timeout
	defer cancel()
	took, err := d.Handshakes(ctx, from, to, 1)
	if err != nil {
		return fmt.Sprintf("a TCP handshake from %s's network with %s's broker port got no answer within %v (%v)", from, to, cluster.CutProbe, err), false
	}
	return fmt.Sprintf("a TCP handshake from %s's network with %s's broker port was answered in %v: the cut did not stop it", from, to, took[0].Round(time.Millisecond)), true
}

var _ = handles(link, runbook.OpLink)

// link: link NODE... [--rate RATE] [--delay DUR [--jitter DUR] [--to NODE,NODE]]
// — what each node sends is limited to the rate, held for the delay, or
// both; the fault events carry the nodes and the rate or the delay as
// written ("k2", "10mbit/s"; "k2", "50ms --jitter 10ms"; "0" for none),
// so the report shades a narrow or a slow link. The delay is in delay.go.
func link(ctx context.Context, n *nemesis, s runbook.Step, l runbook.Link, log *stepLog) error {
	nodes, err := n.targets(ctx, l.Targets)
	if err != nil {
		return err
	}
	if l.HasRate {
		nf, err := n.net()
		if err != nil {
			return err
		}
		before, rerr := n.netStates(ctx, nodes) // the rates this step ends, counted (inforce.go)
		at := time.Now().UTC()
		for _, node := range nodes {
			if err := nf.Rate(ctx, node, l.BitsPerSec); err != nil {
				return err
			}
		}
		f := results.Fault{At: at, Op: "link", Nodes: append(slices.Clone(nodes), l.Rate), Pos: s.Pos.String()}
		f.Observed, f.Unproven = n.netLanded(ctx, nodes, before, rerr, rateOf, rateNow(l.BitsPerSec))
		n.record(f)
		if l.BitsPerSec == 0 {
			log.line("link %s: no limit", strings.Join(nodes, " "))
		} else {
			log.line("link %s: each sends at most %s", strings.Join(nodes, " "), l.Rate)
		}
		if f.Observed != "" {
			log.line("  %s", f.Observed)
		}
	}
	if l.HasDelay {
		return n.delay(ctx, s, l, nodes, log)
	}
	return nil
}

var _ = handles(heal, runbook.OpHeal)

// heal: heal — removes every partition, packet loss, narrow and slow link.
func heal(ctx context.Context, n *nemesis, s runbook.Step, _ runbook.Heal, log *stepLog) error {
	nf, err := n.net()
	if err != nil {
		return err
	}
	before, rerr := n.netStates(ctx, nil) // the losses and rates it ends, counted (inforce.go)
	at := time.Now().UTC()
	if err := nf.HealNetwork(ctx); err != nil {
		return err
	}
	f := results.Fault{At: at, Op: "heal", Nodes: []string{}, Pos: s.Pos.String()}
	f.Observed, f.Unproven = n.healLanded(ctx, before, rerr)
	n.record(f)
	log.line("network healed: no partition, no loss, no narrow or slow link")
	if f.Observed != "" {
		log.line("  %s", f.Observed)
	}
	return nil
}

var _ = handles(loss, runbook.OpLoss)

// loss: loss NODE PERCENT
func loss(ctx context.Context, n *nemesis, s runbook.Step, l runbook.Loss, log *stepLog) error {
	nf, err := n.net()
	if err != nil {
		return err
	}
	nodes, err := n.nodes(ctx, l.Node)
	if err != nil {
		return err
	}
	pct := l.Percent
	before, rerr := n.netStates(ctx, nodes[:1]) // the loss this step ends, counted (inforce.go)
	at := time.Now().UTC()
	if err := nf.Loss(ctx, nodes[0], pct); err != nil {
		return err
	}
	f := results.Fault{At: at, Op: "loss", Nodes: []string{nodes[0], fmt.Sprintf("%d%%", pct)}, Pos: s.Pos.String()}
	f.Observed, f.Unproven = n.netLanded(ctx, nodes[:1], before, rerr, lossOf, lossNow(pct))
	n.record(f)
	log.line("loss %s %d%%", nodes[0], pct)
	if f.Observed != "" {
		log.line("  %s", f.Observed)
	}
	return nil
}
