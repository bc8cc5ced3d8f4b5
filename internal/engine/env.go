package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// Bounds of every read of a run, the observation's and the workload's own
// (a transform's output): the whole read, and how long it waits for the
// high watermarks to stand still (quiet) before it reads anyway.
const (
	readTimeout = 60 * time.Second
	settleLimit = 10 * time.Second
	settleQuiet = time.Second
)

// stableWait bounds how long a read waits for the last stable offset of a
// transactional topic to pass its sentinels: a transaction
// left open is aborted by its coordinator after the transaction timeout
// (franz-go's default: 40s).
const stableWait = 90 * time.Second

// env is the ground every part of a run stands on: the run's options, its
// evidence stream and console, and the cluster as the run reaches it
// (addresses, access, an admin client, where client processes start). The
// workload, the nemesis and the observation each hold it; none of them
// holds another.
type env struct {
	opts   Options
	ev     *results.EventWriter
	num    int    // run number, 1-based
	suffix string // appended to every topic name in this run
	con    *console
	start  time.Time
	status cluster.Status // node addresses; broker add and remove change it
	// removed are the brokers broker remove took out this run, whose
	// logs the evidence still keeps.
	removed []string
	access  cluster.Access // how to reach them (cluster.AccessOf)
	admin   *kafka.Client
	// launcher starts client processes where the cluster's clients run:
	// on this machine, or in a pod for the Kubernetes backend.
	launcher launch.Launcher
	// coordinator resolves coordinator(group:G) and coordinator(txn:NAME)
	// to a node: only the workload knows which group or transactional id
	// a runbook name stands for.
	coordinator func(context.Context, runbook.Coordinator) (string, error)
}

// realName is the topic name in the cluster for a runbook name.
func (e *env) realName(label string) string { return label + e.suffix }

// label maps a real topic name back to its runbook name.
func (e *env) label(name string) string {
	return strings.TrimSuffix(name, e.suffix)
}

// evidenceErr fails the run once its evidence can no longer be written: a
// run whose evidence is lost has nothing to show.
func (e *env) evidenceErr() error {
	if err := e.ev.Err(); err != nil {
		return fmt.Errorf("writing the evidence: %w", err)
	}
	return nil
}

// nodes resolves a target (k2, leader(T), followers(T), coordinator(...)) to node names.
func (e *env) nodes(ctx context.Context, t runbook.Target) ([]string, error) {
	if t.Node != "" {
		return []string{t.Node}, nil
	}
	if t.Coordinator != nil {
		n, err := e.coordinator(ctx, *t.Coordinator)
		if err != nil {
			return nil, err
		}
		return []string{n}, nil
	}
	if t.Controller {
		id, err := e.admin.ActiveController(ctx)
		if err != nil {
			return nil, fmt.Errorf("controller(): %w", err)
		}
		return []string{runbook.NodeName(id)}, nil
	}
	topic := t.Leader + t.Followers
	parts, err := e.partitions(ctx, e.realName(topic))
	if err != nil || len(parts) == 0 {
		return nil, fmt.Errorf("%s: no metadata for %s: %v", t, topic, err)
	}
	p := parts[0]
	if t.Leader != "" {
		if p.Leader < 0 {
			return nil, fmt.Errorf("%s: partition 0 of %s has no leader", t, topic)
		}
		return []string{runbook.NodeName(p.Leader)}, nil
	}
	var out []string
	for _, id := range p.Replicas {
		if id != p.Leader {
			out = append(out, runbook.NodeName(id))
		}
	}
	return out, nil
}

// addr is a node's broker address.
func (e *env) addr(node string) (string, error) {
	n, ok := e.status.Node(node)
	if !ok {
		return "", fmt.Errorf("no node %s in the cluster", node)
	}
	return n.Address, nil
}

// seeds is the bootstrap list for a --via node (the reachable nodes when
// via is the zero Target), and the name of the node asked.
func (e *env) seeds(ctx context.Context, via runbook.Target) (kafka.Brokers, string, error) {
	if via == (runbook.Target{}) {
		return e.reachable(ctx), "", nil
	}
	names, err := e.nodes(ctx, via)
	if err != nil {
		return kafka.Brokers{}, "", err
	}
	a, err := e.addr(names[0])
	return e.brokers(a), names[0], err
}

// brokers is the cluster bootstrapped from addrs, reached as its backend
// says (see cluster.Access).
func (e *env) brokers(addrs ...string) kafka.Brokers {
	return kafka.Brokers{Seeds: addrs, Access: e.access}
}

// partitions is fresh metadata of topics (all when none), asked of the
// nodes that can answer now.
func (e *env) partitions(ctx context.Context, topics ...string) ([]kafka.Partition, error) {
	_, ids := e.running(ctx)
	return e.admin.PartitionsFrom(ctx, ids, topics...)
}

// running lists the addresses and ids of the nodes that are up and on the
// network, by the backend's account.
func (e *env) running(ctx context.Context) (addrs []string, ids []int32) {
	st, err := e.opts.Backend.Status(ctx)
	if err != nil {
		return nil, nil
	}
	for _, n := range st.Nodes {
		if n.State == cluster.Running {
			addrs = append(addrs, n.Address)
			ids = append(ids, int32(n.ID))
		}
	}
	return addrs, ids
}

// reachable is the bootstrap list without nodes that are isolated, paused
// or down: a new client that picked one of those first would spend its
// dial timeout there, and the first message would carry that wait.
func (e *env) reachable(ctx context.Context) kafka.Brokers {
	if addrs, _ := e.running(ctx); len(addrs) > 0 {
		return e.brokers(addrs...)
	}
	return e.brokers(e.status.Bootstrap()...)
}
