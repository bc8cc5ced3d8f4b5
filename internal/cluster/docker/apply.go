package docker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/poll"
)

// Apply performs op on the named nodes, in the order given.
func (b *Backend) Apply(ctx context.Context, op cluster.Op, names []string, progress cluster.Progress) error {
	cli, err := b.client(ctx)
	if err != nil {
		return err
	}
	cs, err := b.containers(ctx, cli)
	if err != nil {
		return err
	}
	if len(cs) == 0 {
		return fmt.Errorf("no Docker cluster %q is up (start one with `kafkabook cluster up --backend docker`)", b.name)
	}
	byName := map[string]container.Summary{}
	for _, c := range cs {
		byName[c.Labels[labelNode]] = c
	}
	for _, name := range names {
		if _, ok := byName[name]; !ok {
			return fmt.Errorf("no node %q in cluster %q (it has k1..k%d)", name, b.name, len(cs))
		}
	}
	for _, name := range names {
		if err := b.apply(ctx, cli, op, byName[name], progress); err != nil {
			return fmt.Errorf("%s %s: %w", op, name, err)
		}
	}
	return nil
}

// apply performs op on one node's container; an op whose effect is there
// already does nothing.
func (b *Backend) apply(ctx context.Context, cli *client.Client, op cluster.Op, c container.Summary, progress cluster.Progress) error {
	in, err := cli.ContainerInspect(ctx, c.ID)
	if err != nil {
		return err
	}
	running, paused := in.State.Running, in.State.Paused
	switch op {
	case cluster.Kill, cluster.Stop:
		if !running {
			return nil
		}
		// Its network namespace goes with it, and the rule that queues
		// to its delayer: the delayer goes first.
		if err := b.stopDelayers(ctx, c.Labels[labelNode]); err != nil {
			return err
		}
		return b.end(ctx, cli, op, c, paused, progress)
	case cluster.Start:
		if running {
			return nil
		}
		id := c.ID
		if next, ok := b.takeNext(c.Labels[labelNode]); ok {
			// Another release or settings of its own: a new container.
			if id, err = b.recreate(ctx, cli, c, next); err != nil {
				return err
			}
		}
		return cli.ContainerStart(ctx, id, container.StartOptions{})
	case cluster.Pause:
		if !running {
			return fmt.Errorf("%s is not running", c.Labels[labelNode])
		}
		if paused {
			return nil
		}
		return cli.ContainerPause(ctx, c.ID)
	case cluster.Resume:
		if !paused {
			return nil
		}
		return cli.ContainerUnpause(ctx, c.ID)
	case cluster.Isolate, cluster.Rejoin:
		_, attached := in.NetworkSettings.Networks[c.Labels[labelNetwork]]
		return setAttached(ctx, cli, c, attached, op == cluster.Rejoin)
	}
	return fmt.Errorf("unknown operation %q", op)
}

// end kills (SIGKILL) or stops (SIGTERM, then SIGKILL after 60 s) a
// running container and waits until it has exited. A frozen one is thawed
// first: the engine refuses to signal it, and a frozen JVM cannot shut
// down.
func (b *Backend) end(ctx context.Context, cli *client.Client, op cluster.Op, c container.Summary, paused bool, progress cluster.Progress) error {
	if paused {
		if err := cli.ContainerUnpause(ctx, c.ID); err != nil {
			return err
		}
	}
	var err error
	if op == cluster.Kill {
		err = cli.ContainerKill(ctx, c.ID, "SIGKILL")
	} else {
		timeout := 60
		err = cli.ContainerStop(ctx, c.ID, container.StopOptions{Signal: "SIGTERM", Timeout: &timeout})
	}
	if err != nil {
		return err
	}
	return b.waitExited(ctx, cli, c, 10*time.Second, progress)
}

// setAttached disconnects the container from the cluster's network
// (isolate) or connects it again with the same address and aliases
// (rejoin).
func setAttached(ctx context.Context, cli *client.Client, c container.Summary, attached, want bool) error {
	netName := c.Labels[labelNetwork]
	switch {
	case attached == want:
		return nil
	case !want:
		return cli.NetworkDisconnect(ctx, netName, c.ID, false)
	}
	return cli.NetworkConnect(ctx, netName, c.ID, &network.EndpointSettings{
		IPAMConfig: &network.EndpointIPAMConfig{IPv4Address: c.Labels[labelIP]}, Aliases: strings.Split(c.Labels[labelAliases], ","),
	})
}

// waitExited waits until the container no longer runs.
func (b *Backend) waitExited(ctx context.Context, cli *client.Client, c container.Summary, timeout time.Duration, progress cluster.Progress) error {
	return poll.Until(ctx, 50*time.Millisecond, timeout, progress, func(ctx context.Context) (bool, string, error) {
		in, err := cli.ContainerInspect(ctx, c.ID)
		if err != nil {
			return false, "", err
		}
		return !in.State.Running, fmt.Sprintf("waiting for %s to exit", c.Labels[labelNode]), nil
	})
}
