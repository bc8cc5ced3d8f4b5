package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/poll"
)

// healTimeout bounds how long a cluster may take to become healthy.
const healTimeout = 3 * time.Minute

// heal brings every node back (start, resume, rejoin) and waits until the
// cluster is healthy, so each run starts from the same place.
func (r *runner) heal(ctx context.Context) error {
	progress := poll.Printer(r.con, "  ")
	say := func(op cluster.Op, node string, was cluster.State) {
		r.con.printf("  heal: %s %s (was %s)\n", op, node, was)
	}
	if err := cluster.BringBack(ctx, r.opts.Backend, progress, say); err != nil {
		return err
	}
	return r.waitHealthy(ctx, healTimeout, progress)
}

// waitHealthy waits until every node is a registered broker and every
// partition's ISR holds all its replicas.
func (r *runner) waitHealthy(ctx context.Context, timeout time.Duration, progress func(string, ...any)) error {
	want := len(r.status.Nodes)
	return poll.Until(ctx, 100*time.Millisecond, timeout, progress, func(ctx context.Context) (bool, string, error) {
		// Every node must answer for itself and see every broker: a
		// node killed a moment ago is still listed by the others until
		// its session expires.
		_, ids := r.running(ctx)
		if len(ids) < want {
			return false, r.notRunning(ids), nil
		}
		for _, id := range ids {
			brokers, err := r.admin.BrokersAt(ctx, id)
			if err != nil {
				return false, fmt.Sprintf("k%d does not answer yet (%v)", id, err), nil
			}
			if len(brokers) < want {
				return false, fmt.Sprintf("k%d sees %d of %d brokers %v", id, len(brokers), want, brokers), nil
			}
		}
		parts, err := r.partitions(ctx) // every topic
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
	})
}

// notRunning says which nodes are not running, and for those the runbook
// took down, which line did it and what would bring them back.
func (r *runner) notRunning(running []int32) string {
	var out []string
	for _, n := range r.status.Nodes {
		if slices.Contains(running, int32(n.ID)) {
			continue
		}
		if s, ok := r.nem.tookDown(n.Name); ok {
			out = append(out, fmt.Sprintf("%s is down since line %d (%s): add \"start %s\" before this wait", n.Name, s.Pos.Line, s.Text, n.Name))
		} else {
			out = append(out, n.Name+" is not running")
		}
	}
	return strings.Join(out, "; ")
}
