package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/runbook"
)

// healTimeout bounds how long a cluster may take to become healthy.
const healTimeout = 3 * time.Minute

// heal brings every node back (start, resume, rejoin) and waits until the
// cluster is healthy, so each run starts from the same place.
func (n *nemesis) heal(ctx context.Context) error {
	progress := poll.Printer(n.con, "  ")
	say := func(op cluster.Op, node string, was cluster.State) {
		n.con.printf("  heal: %s %s (was %s)\n", op, node, was)
	}
	if err := cluster.BringBack(ctx, n.opts.Backend, progress, say); err != nil {
		return err
	}
	return n.waitHealthy(ctx, healTimeout, progress)
}

// resetIfChanged makes the cluster new on its own release when the last
// run changed it: moved nodes to another release (--to), gave them
// settings of their own (--set), added or removed brokers, or changed a
// dynamic quorum's voters. A finalized metadata.version cannot be undone,
// so each run starts from a cluster like the first run's. It runs before a run, never before the final
// read, which must find what the run left.
func (n *nemesis) resetIfChanged(ctx context.Context) error {
	progress := poll.Printer(n.con, "  ")
	st, err := n.opts.Backend.Status(ctx)
	if err != nil {
		return err
	}
	var moved []string
	for _, node := range st.Nodes {
		if node.Kafka != "" && node.Kafka != st.Kafka {
			moved = append(moved, node.Name+" on "+node.Kafka)
		} else if len(node.Broker) > 0 {
			moved = append(moved, node.Name+" with settings of its own")
		} else if node.Added {
			moved = append(moved, node.Name+" added")
		}
	}
	for _, r := range st.Removed {
		moved = append(moved, r+" removed")
	}
	if st.Quorum == cluster.QuorumDynamic {
		// The voters are the quorum's own record, not the backend's:
		// asked, they must be the nodes the cluster was made with.
		var first []int32
		for _, node := range st.Nodes {
			if !node.Added {
				first = append(first, int32(node.ID))
			}
		}
		if q, err := n.admin.DescribeQuorum(ctx); err == nil && !slices.Equal(q.VoterIDs(), first) {
			moved = append(moved, "the quorum's voters "+voterNames(q))
		}
	}
	if len(moved) == 0 {
		return nil
	}
	r, ok := n.opts.Backend.(cluster.Resetter)
	if !ok {
		return fmt.Errorf("the last run left %s, and this backend cannot make the cluster new on %s: run the runbook once per cluster", strings.Join(moved, ", "), st.Kafka)
	}
	n.con.printf("  heal: the last run left %s: the cluster is made new on Kafka %s\n", strings.Join(moved, ", "), st.Kafka)
	return r.Reset(ctx, progress)
}

// waitHealthy waits until every node is a registered broker and every
// partition's ISR holds all its replicas.
func (n *nemesis) waitHealthy(ctx context.Context, timeout time.Duration, progress func(string, ...any)) error {
	want := len(n.status.Nodes)
	return poll.Until(ctx, 100*time.Millisecond, timeout, progress, func(ctx context.Context) (bool, string, error) {
		// Every node must answer for itself and see every broker: a
		// node killed a moment ago is still listed by the others until
		// its session expires.
		_, ids := n.running(ctx)
		if len(ids) < want {
			return false, n.notRunning(ids), nil
		}
		for _, id := range ids {
			brokers, err := n.admin.BrokersAt(ctx, id)
			if err != nil {
				return false, fmt.Sprintf("k%d does not answer yet (%v)", id, err), nil
			}
			if len(brokers) < want {
				return false, fmt.Sprintf("k%d sees %d of %d brokers %v", id, len(brokers), want, brokers), nil
			}
		}
		return n.fullISR(ctx)
	})
}

// fullISR says whether every partition of every topic has a leader and
// all its replicas in its ISR, and when not, which are short.
func (n *nemesis) fullISR(ctx context.Context) (bool, string, error) {
	parts, err := n.partitions(ctx) // every topic
	if err != nil {
		return false, "metadata: " + err.Error(), nil
	}
	var short []string
	for _, p := range parts {
		if len(p.ISR) < len(p.Replicas) || p.Leader < 0 {
			short = append(short, fmt.Sprintf("%s-%d isr=%v", p.Topic, p.ID, p.ISR))
		}
	}
	if len(short) > 0 {
		slices.Sort(short)
		if len(short) > 3 {
			short = append(short[:3], fmt.Sprintf("and %d more", len(short)-3))
		}
		return false, "partitions with a short ISR: " + strings.Join(short, ", "), nil
	}
	return true, "", nil
}

// notRunning says which nodes are not running, and for those the runbook
// took down, which line did it and what would bring them back.
func (n *nemesis) notRunning(running []int32) string {
	var out []string
	for _, node := range n.status.Nodes {
		if slices.Contains(running, int32(node.ID)) {
			continue
		}
		if s, ok := n.tookDown(node.Name); ok {
			out = append(out, fmt.Sprintf("%s is down since line %d (%s): add \"start %s\" before this wait", node.Name, s.Pos.Line, s.Text, node.Name))
		} else {
			out = append(out, node.Name+" is not running")
		}
	}
	return strings.Join(out, "; ")
}

var _ = handles(waitHealthy, runbook.OpWaitHealthy)

// waitHealthy: wait healthy [--timeout DUR]
func waitHealthy(ctx context.Context, n *nemesis, s runbook.Step, w runbook.WaitHealthy, log *stepLog) error {
	start := time.Now()
	if err := n.waitHealthy(ctx, w.Timeout, log.progress); err != nil {
		return err
	}
	log.line("healthy after %.1fs", time.Since(start).Seconds())
	return nil
}
