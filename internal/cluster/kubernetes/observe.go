package kubernetes

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

var _ cluster.Observer = (*Backend)(nil)

// Observe reads what op left each node's broker from the process table of
// its pod, through the fault script's observe (the broker's last pid and
// its state in /proc), not from the control files in which the script
// records what it did. Isolate and rejoin it does not read: it says
// nothing of them.
func (b *Backend) Observe(ctx context.Context, op cluster.Op, names []string) (string, bool, error) {
	switch op {
	case cluster.Kill, cluster.Stop, cluster.Start, cluster.Resume, cluster.Pause:
	default:
		return "", true, nil
	}
	a, err := b.client(ctx)
	if err != nil {
		return "", false, err
	}
	all, err := b.nodes(ctx, a)
	if err != nil {
		return "", false, err
	}
	ns, err := b.byName(all, names)
	if err != nil {
		return "", false, err
	}
	var said []string
	landed := true
	for _, n := range ns {
		octx, cancel := context.WithTimeout(ctx, 10*time.Second)
		out, err := a.run(octx, n.Pod.Name, containerFaults, faultScript, "observe")
		cancel()
		if err != nil {
			return "", false, fmt.Errorf("%s: reading its broker's process: %w", n.Name, err)
		}
		pid, state, _ := strings.Cut(strings.TrimSpace(out), " ")
		gone := state == "gone" || state == "Z" || state == "X"
		s, ok := cluster.ProcessShows(op, "pod "+n.Pod.Name+"'s "+strings.Replace(pid, "=", " ", 1), gone, state == "T" || state == "t", state)
		said = append(said, n.Name+": "+s)
		landed = landed && ok
	}
	return strings.Join(said, "; "), landed, nil
}
