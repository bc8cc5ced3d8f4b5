package engine

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// memberTimeout bounds how long an added broker may take to register.
const memberTimeout = 2 * time.Minute

// members is the backend's way of growing a cluster, or why it has none.
func (n *nemesis) members(need string) (cluster.Members, error) {
	m, ok := n.opts.Backend.(cluster.Members)
	if !ok {
		return nil, fmt.Errorf("%s", cluster.Lacks(n.opts.Backend, need))
	}
	return m, nil
}

var _ = handles(brokerAdd, runbook.OpBrokerAdd)

// brokerAdd: broker add kN [--kafka VERSION] — the new broker started, then
// waited for until every running node lists it; from then on the run
// counts it among the cluster's nodes.
func brokerAdd(ctx context.Context, n *nemesis, s runbook.Step, a runbook.BrokerAdd, log *stepLog) error {
	m, err := n.members(cluster.NeedBrokerAdd)
	if err != nil {
		return err
	}
	at := time.Now().UTC()
	node, version, waited, err := n.joinNode(ctx, "broker add", a.Node, a.Kafka, m.AddBroker, log)
	if err != nil {
		return err
	}
	n.record(results.Fault{At: at, Op: "broker add", Nodes: []string{node.Name}, Pos: s.Pos.String(), Kafka: version})
	log.line("%s registered as broker %d on Kafka %s after %.1fs", node.Name, node.ID, version, waited.Seconds())
	return nil
}

// joinNode starts the cluster's next node with add, on release version (""
// the release k1 runs now: after a rolling upgrade, a node of the release
// the cluster was made with may not join it), checks that it is the node
// the runbook names (want), and waits until every running node lists it;
// from then on the run counts it among the cluster's nodes. It returns the
// node, its release and how long it took to be listed once started.
func (n *nemesis) joinNode(ctx context.Context, op, want, version string, add func(context.Context, string, cluster.Progress) (cluster.Node, error), log *stepLog) (cluster.Node, string, time.Duration, error) {
	if version == "" {
		var err error
		if version, err = n.releaseNow(ctx); err != nil {
			return cluster.Node{}, "", 0, err
		}
	}
	node, err := add(ctx, version, log.progress)
	if err != nil {
		return cluster.Node{}, "", 0, err
	}
	if node.Name != want {
		return cluster.Node{}, "", 0, fmt.Errorf("%s %s: the cluster made %s (its nodes are not the runbook's)", op, want, node.Name)
	}
	start := time.Now()
	if err := n.waitRegistered(ctx, node, log); err != nil {
		return cluster.Node{}, "", 0, fmt.Errorf("%s %s: %w", op, node.Name, err)
	}
	n.status.Nodes = append(slices.Clone(n.status.Nodes), node)
	return node, version, time.Since(start), nil
}

// waitRegistered waits until every running node lists the new node among
// its brokers, and fails at once, with its log's tail, when it dies.
func (n *nemesis) waitRegistered(ctx context.Context, node cluster.Node, log *stepLog) error {
	return poll.Until(ctx, 200*time.Millisecond, memberTimeout, log.progress, func(ctx context.Context) (bool, string, error) {
		if st, err := n.opts.Backend.Status(ctx); err == nil {
			if now, ok := st.Node(node.Name); ok && !now.State.Up() {
				return false, "", fmt.Errorf("%s is %s, not running: its broker log says why%s", node.Name, now.State, n.logTail(ctx, node.Name))
			}
		}
		_, ids := n.running(ctx)
		for _, id := range ids {
			brokers, err := n.admin.BrokersAt(ctx, id)
			if err != nil || !slices.Contains(brokers, int32(node.ID)) {
				return false, fmt.Sprintf("waiting for k%d to list %s", id, node.Name), nil
			}
		}
		return true, "", nil
	})
}

// releaseNow is the release k1 (the first node) runs now.
func (n *nemesis) releaseNow(ctx context.Context) (string, error) {
	st, err := n.opts.Backend.Status(ctx)
	if err != nil {
		return "", err
	}
	if len(st.Nodes) > 0 && st.Nodes[0].Kafka != "" {
		return st.Nodes[0].Kafka, nil
	}
	return st.Kafka, nil
}

// logTail is the end of a node's broker log, for an error message.
func (n *nemesis) logTail(ctx context.Context, node string) string {
	rc, err := n.opts.Backend.Logs(ctx, node)
	if err != nil {
		return ""
	}
	defer rc.Close()
	data, _ := io.ReadAll(io.LimitReader(rc, 8<<20))
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return ":\n" + n.con.red.String(strings.Join(lines, "\n"))
}

var _ = handles(brokerRemove, runbook.OpBrokerRemove)

// brokerRemove: broker remove kN — a clean shutdown, then the broker's
// registration removed, as an operator retires a broker.
func brokerRemove(ctx context.Context, n *nemesis, s runbook.Step, r runbook.BrokerRemove, log *stepLog) error {
	m, err := n.members(cluster.NeedBrokerRemove)
	if err != nil {
		return err
	}
	node, ok := n.status.Node(r.Node)
	if !ok {
		return fmt.Errorf("broker remove %s: no such node in the cluster now", r.Node)
	}
	if !node.Added {
		// A node the cluster was made with is one of its controllers:
		// it may go only once a dynamic quorum no longer counts it.
		q, err := n.admin.DescribeQuorum(ctx)
		if err != nil {
			return err
		}
		if _, voter := q.Voter(int32(node.ID)); voter {
			return fmt.Errorf("broker remove %s: it is one of the controller quorum's voters (%s): take it out first with voter remove %s", r.Node, voterNames(q), r.Node)
		}
	}
	at := time.Now().UTC()
	if err := m.RemoveBroker(ctx, r.Node, log.progress); err != nil {
		return err
	}
	if err := n.admin.UnregisterBroker(ctx, int32(node.ID)); err != nil {
		return err
	}
	n.record(results.Fault{At: at, Op: "broker remove", Nodes: []string{r.Node}, Pos: s.Pos.String()})
	n.status.Nodes = slices.DeleteFunc(slices.Clone(n.status.Nodes), func(x cluster.Node) bool { return x.Name == r.Node })
	n.removed = append(n.removed, r.Node)
	log.line("%s shut down and unregistered", r.Node)
	return nil
}
