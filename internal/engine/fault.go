package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// fault: kill|stop|start|pause|resume|isolate|rejoin NODE...
// Targets are resolved when the step runs: leader(T) is partition 0's
// leader at that moment.
func fault(ctx context.Context, r *runner, s runbook.Step, f runbook.Fault, log *stepLog) error {
	op := cluster.Op(f.Op) // a fault directive is named as the backend's operation
	if _, ok := cluster.FaultOf(op); !ok {
		return fmt.Errorf("%s is not a fault of the cluster backend", s.Name)
	}
	var nodes []string
	for _, t := range f.Targets {
		ns, err := r.nodes(ctx, t)
		if err != nil {
			return err
		}
		nodes = append(nodes, ns...)
	}
	at := time.Now().UTC()
	if err := r.opts.Backend.Apply(ctx, op, nodes, log.progress); err != nil {
		return err
	}
	r.ev.Emit(results.KindFault, r.num, results.Fault{At: at, Op: string(op), Nodes: nodes, Pos: s.Pos.String()})
	r.mu.Lock()
	row, _ := cluster.FaultOf(op)
	for _, n := range nodes {
		switch {
		case !row.Leaves.Up(): // the step that took it down, for waits that need it
			r.downBy[n] = s
		case row.Leaves == cluster.Running:
			delete(r.downBy, n)
		}
	}
	r.mu.Unlock()
	log.line("%s %s", op, strings.Join(nodes, " "))
	return nil
}

// netFaults is the backend's finer network faults, or an error naming the
// backend that cannot inject them.
func (r *runner) netFaults() (cluster.NetFaults, error) {
	nf, ok := r.opts.Backend.(cluster.NetFaults)
	if !ok {
		return nil, fmt.Errorf("this cluster backend cannot partition the network or drop packets")
	}
	return nf, nil
}

// partition: partition NODE... | NODE... [--one-way] [--keep-quorum]
//
// The fault event names the partition as written, flags included
// ("k1 | k2 k3 --keep-quorum"), so that the report's shading says which
// traffic was cut.
func partition(ctx context.Context, r *runner, s runbook.Step, p runbook.Partition, log *stepLog) error {
	nf, err := r.netFaults()
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
	r.ev.Emit(results.KindFault, r.num, results.Fault{At: at, Op: "partition", Nodes: written, Pos: s.Pos.String()})
	log.line("partition %s (%s; clients still reach every node)", strings.Join(nodes, " "), how)
	return nil
}

// heal: heal — removes every partition and packet loss.
func heal(ctx context.Context, r *runner, s runbook.Step, _ runbook.Heal, log *stepLog) error {
	nf, err := r.netFaults()
	if err != nil {
		return err
	}
	at := time.Now().UTC()
	if err := nf.HealNetwork(ctx); err != nil {
		return err
	}
	r.ev.Emit(results.KindFault, r.num, results.Fault{At: at, Op: "heal", Nodes: []string{}, Pos: s.Pos.String()})
	log.line("network healed: no partition, no loss")
	return nil
}

// loss: loss NODE PERCENT
func loss(ctx context.Context, r *runner, s runbook.Step, l runbook.Loss, log *stepLog) error {
	nf, err := r.netFaults()
	if err != nil {
		return err
	}
	nodes, err := r.nodes(ctx, l.Node)
	if err != nil {
		return err
	}
	pct := l.Percent
	at := time.Now().UTC()
	if err := nf.Loss(ctx, nodes[0], pct); err != nil {
		return err
	}
	r.ev.Emit(results.KindFault, r.num, results.Fault{At: at, Op: "loss", Nodes: []string{nodes[0], fmt.Sprintf("%d%%", pct)}, Pos: s.Pos.String()})
	log.line("loss %s %d%%", nodes[0], pct)
	return nil
}
