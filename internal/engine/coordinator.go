package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/runbook"
)

// coordinatorWait bounds the wait for a coordinator: a broker that just
// died still leads its partitions of __consumer_offsets and
// __transaction_state until the controller moves them.
const coordinatorWait = 30 * time.Second

// coordinatorNode resolves coordinator(txn:NAME) or coordinator(group:G)
// to the node the cluster names (FindCoordinator) when the step runs,
// asked of the nodes that run: a paused coordinator would hold the
// question past the broker session timeout, and the answer would then be
// the node the coordinator moved to, not the one paused.
func (w *workload) coordinatorNode(ctx context.Context, c runbook.Coordinator) (string, error) {
	kind, key := kafka.CoordinatorGroup, w.realName(c.Name)
	if c.Kind == runbook.CoordTxn {
		kind = kafka.CoordinatorTxn
		id, err := w.txnIDOf(c.Name)
		if err != nil {
			return "", err
		}
		key = id
	}
	_, running := w.running(ctx)
	id, err := w.admin.Coordinator(ctx, running, kind, key, coordinatorWait)
	if err != nil {
		return "", err
	}
	return runbook.NodeName(id), nil
}

// txnIDOf is the transactional id coordinator(txn:NAME) means: the
// members' of transform group NAME, or that of the first produce NAME
// --transactional step.
func (w *workload) txnIDOf(name string) (string, error) {
	w.mu.Lock()
	g := w.groups[name]
	w.mu.Unlock()
	if g != nil && g.transform != nil {
		if !g.transform.EOS {
			return "", fmt.Errorf("coordinator(txn:%s): transform group %s runs without --eos: it has no transactional id", name, name)
		}
		return transformTxnID(g), nil
	}
	for _, b := range w.opts.Doc.Blocks {
		for _, s := range b.Steps {
			if p, ok := s.Action.(runbook.Produce); ok && p.Topic == name && p.Transactional {
				return transactionalID(w.topic(name), s), nil
			}
		}
	}
	return "", fmt.Errorf("coordinator(txn:%s): no transform group %s started yet and no produce %s --transactional step", name, name, name)
}
