package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/netfault"
)

// Network faults finer than isolation are iptables rules inside each
// container's network namespace (package netfault), run with the host's
// iptables through nsenter: the image needs no tools of its own. The
// rules live and die with the namespace: a container that is stopped and
// started gets a new one, without them, and `down` removes them with the
// containers. Faults need root on the host, as the local backend's do.
// They are netfault.Faults over netNodes, embedded in Backend.

var (
	_ cluster.NetFaults = (*Backend)(nil)
	_ cluster.NetStates = (*Backend)(nil)
)

// HealNetwork removes every partition, loss, rate limit and delay of
// every running node: the rules first, then the delayers, which send on
// what they hold.
// Without root kafkabook can have made no rules: there is nothing to heal.
func (b *Backend) HealNetwork(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return nil
	}
	if err := b.Faults.HealNetwork(ctx); err != nil {
		return err
	}
	return b.stopDelayers(ctx, "")
}

// NetStates reads the loss and rate limit in force on the named nodes
// (every running one when names is empty) from their kernels. Without
// root kafkabook can have made no rules: there is nothing to read.
func (b *Backend) NetStates(ctx context.Context, names []string) ([]cluster.NetState, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	return b.Faults.NetStates(ctx, names)
}

// netNodes finds the named containers (all running ones when names is
// empty) and the port of the inter-broker listener (netfault.Nodes).
func (b *Backend) netNodes(ctx context.Context, names []string) (map[string]netfault.Node, int, error) {
	if os.Geteuid() != 0 {
		return nil, 0, errors.New("network faults need root: iptables runs inside each container's network namespace")
	}
	cli, err := b.client(ctx)
	if err != nil {
		return nil, 0, err
	}
	cs, err := b.containers(ctx, cli)
	if err != nil {
		return nil, 0, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	nodes := map[string]netfault.Node{}
	port := 0
	for _, c := range cs {
		name := c.Labels[labelNode]
		if len(names) > 0 && !want[name] {
			continue
		}
		in, err := cli.ContainerInspect(ctx, c.ID)
		if err != nil {
			return nil, 0, err
		}
		if in.State == nil || in.State.Pid == 0 {
			if len(names) == 0 {
				continue // not running: no namespace, no rules
			}
			return nil, 0, fmt.Errorf("%s is not running: its container has no network namespace to put rules in (start it first)", name)
		}
		pid := strconv.Itoa(in.State.Pid)
		n := netfault.Node{Name: name, IP: c.Labels[labelIP],
			Exec: func(ctx context.Context, argv ...string) (string, error) {
				full := append([]string{"--target", pid, "--net"}, argv...)
				out, err := exec.CommandContext(ctx, "nsenter", full...).CombinedOutput()
				if err != nil {
					return "", fmt.Errorf("in %s's container: %s: %v: %s", name, strings.Join(argv, " "), err, strings.TrimSpace(string(out)))
				}
				return string(out), nil
			}}
		nodes[name] = n
		if p := interBrokerPort(in); p > 0 {
			port = p
		}
	}
	for _, n := range names {
		if _, ok := nodes[n]; !ok {
			return nil, 0, fmt.Errorf("no node %s in cluster %s", n, b.name)
		}
	}
	return nodes, port, nil
}

// interBrokerPort reads the port of the inter-broker listener from a
// container's environment (compose.yaml: INTERNAL://:19092), 0 when it
// cannot.
func interBrokerPort(in container.InspectResponse) int {
	env := map[string]string{}
	if in.Config != nil {
		for _, kv := range in.Config.Env {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
	}
	name := env["KAFKA_INTER_BROKER_LISTENER_NAME"]
	for _, l := range strings.Split(env["KAFKA_LISTENERS"], ",") {
		if ln, addr, ok := strings.Cut(l, "://"); ok && ln == name {
			i := strings.LastIndexByte(addr, ':')
			p, err := strconv.Atoi(addr[i+1:])
			if err == nil {
				return p
			}
		}
	}
	return 0
}
