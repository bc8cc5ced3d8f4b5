package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/internal/cluster"
)

// containers lists the cluster's containers, by node id.
func (b *Backend) containers(ctx context.Context, cli *client.Client) ([]container.Summary, error) {
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: b.filter(filters.Arg("label", labelNode))})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(cs, func(a, c container.Summary) int {
		x, _ := strconv.Atoi(a.Labels[labelNodeID])
		y, _ := strconv.Atoi(c.Labels[labelNodeID])
		return x - y
	})
	return cs, nil
}

// Status describes the cluster from its containers.
func (b *Backend) Status(ctx context.Context) (cluster.Status, error) {
	cli, err := b.client(ctx)
	if err != nil {
		return cluster.Status{}, err
	}
	cs, err := b.containers(ctx, cli)
	if err != nil {
		return cluster.Status{}, err
	}
	if len(cs) == 0 {
		return cluster.Status{}, fmt.Errorf("%w: no Docker cluster %q is up (start one with `kafkabook cluster up --backend docker`)", cluster.ErrNotFound, b.name)
	}
	broker, err := brokerSettings(cs[0])
	if err != nil {
		return cluster.Status{}, err
	}
	st := cluster.Status{Name: b.name, Backend: Name, Kafka: cs[0].Labels[labelKafka], Broker: broker, Quorum: cs[0].Labels[labelQuorum]}
	for _, c := range cs {
		in, err := cli.ContainerInspect(ctx, c.ID)
		if err != nil {
			return cluster.Status{}, err
		}
		id, _ := strconv.Atoi(c.Labels[labelNodeID])
		n := cluster.Node{Name: c.Labels[labelNode], ID: id, Address: c.Labels[labelAddress], State: nodeState(in), Kafka: c.Labels[labelNodeKafka], Added: c.Labels[labelAdded] == "true"}
		if l := c.Labels[labelNodeBroker]; l != "" {
			if err := json.Unmarshal([]byte(l), &n.Broker); err != nil {
				return cluster.Status{}, fmt.Errorf("container of %s: label %s: %w", n.Name, labelNodeBroker, err)
			}
		}
		if n.State.Up() {
			n.PID = in.State.Pid
		}
		st.Nodes = append(st.Nodes, n)
	}
	return st, nil
}

// nodeState reads a node's state off its container: a frozen one is
// paused, a running one off its network isolated; a stopped one was killed
// when SIGKILL ended it (exit 137, not the kernel's OOM killer), stopped
// when it shut down (0 or 143, SIGTERM), else it exited unasked.
func nodeState(in container.InspectResponse) cluster.State {
	s := in.State
	switch {
	case s == nil:
		return cluster.Exited
	case s.Paused:
		return cluster.Paused
	case s.Running || s.Restarting:
		if _, ok := in.NetworkSettings.Networks[in.Config.Labels[labelNetwork]]; !ok {
			return cluster.Isolated
		}
		return cluster.Running
	case s.ExitCode == 137 && !s.OOMKilled:
		return cluster.Killed
	case s.ExitCode == 0 || s.ExitCode == 143:
		return cluster.Stopped
	}
	return cluster.Exited
}

// brokerSettings reads the server.properties overrides a node was started
// with off its container's label. They decide whether a running cluster is
// reused for a runbook, so a label that is missing or does not parse is an
// error naming the container, never settings taken as empty.
func brokerSettings(c container.Summary) (map[string]string, error) {
	name := c.ID
	if len(c.Names) > 0 {
		name = strings.TrimPrefix(c.Names[0], "/")
	}
	label, ok := c.Labels[labelBroker]
	if !ok {
		return nil, fmt.Errorf("container %s has no %s label, so the broker settings it was started with are unknown: take the cluster down (`kafkabook cluster down --backend docker`) and start it again", name, labelBroker)
	}
	var broker map[string]string
	if err := json.Unmarshal([]byte(label), &broker); err != nil {
		return nil, fmt.Errorf("container %s: label %s=%q is not a JSON object of settings (%v): take the cluster down (`kafkabook cluster down --backend docker`) and start it again", name, labelBroker, label, err)
	}
	return broker, nil
}
