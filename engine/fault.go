package engine

import (
	"context"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/cluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// fault: kill|stop|start|pause|resume|isolate|rejoin NODE...
// Targets are resolved when the step runs: leader(T) is partition 0's
// leader at that moment.
func fault(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	var nodes []string
	for _, a := range s.Args {
		ns, err := r.nodes(ctx, a.Target())
		if err != nil {
			return err
		}
		nodes = append(nodes, ns...)
	}
	op := cluster.Op(s.Name)
	at := time.Now().UTC()
	if err := r.opts.Backend.Apply(ctx, op, nodes, log.progress); err != nil {
		return err
	}
	r.ev.Emit(results.KindFault, r.num, results.Fault{At: at, Op: string(op), Nodes: nodes, Pos: s.Pos.String()})
	r.mu.Lock()
	for _, n := range nodes {
		switch op {
		case cluster.Kill, cluster.Stop:
			r.downBy[n] = s
		case cluster.Start:
			delete(r.downBy, n)
		}
	}
	r.mu.Unlock()
	log.line("%s %s", op, strings.Join(nodes, " "))
	return nil
}
