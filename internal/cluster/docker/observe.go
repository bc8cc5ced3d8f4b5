package docker

import (
	"context"
	"fmt"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

var _ cluster.Observer = (*Backend)(nil)

// Observe reads what op left each node's container from the Docker
// daemon's view of its processes (running, paused by the cgroup freezer,
// exited with a code), not from the backend's own record. Isolate and
// rejoin it does not read: it says nothing of them.
func (b *Backend) Observe(ctx context.Context, op cluster.Op, names []string) (string, bool, error) {
	var said []string
	all := true
	for _, name := range names {
		cli, c, err := b.container(ctx, name)
		if err != nil {
			return "", false, err
		}
		in, err := cli.ContainerInspect(ctx, c.ID)
		if err != nil {
			return "", false, err
		}
		s := in.State
		var landed bool
		switch op {
		case cluster.Kill, cluster.Stop:
			landed = !s.Running
		case cluster.Start, cluster.Resume:
			landed = s.Running && !s.Paused
		case cluster.Pause:
			landed = s.Running && s.Paused
		default:
			continue
		}
		state := s.Status
		if !s.Running {
			state = fmt.Sprintf("%s (exit code %d)", s.Status, s.ExitCode)
		}
		said = append(said, fmt.Sprintf("%s: container %s", name, state))
		all = all && landed
	}
	return strings.Join(said, "; "), all, nil
}
