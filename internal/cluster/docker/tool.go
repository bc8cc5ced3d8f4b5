package docker

import (
	"bytes"
	"context"
	"fmt"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/kafkabook/kafkabook/internal/cluster"
)

var _ cluster.Tools = (*Backend)(nil)

// Tool runs one of Kafka's command-line tools (its main class) inside
// node's container, with the jars the node runs on, as an operator runs
// kafka-features.sh with docker exec. ToolBootstrap is the node's
// inter-broker listener on the cluster's network, ToolConfig the
// server.properties the image's entrypoint wrote.
func (b *Backend) Tool(ctx context.Context, node, class string, args []string) (string, error) {
	cli, c, err := b.container(ctx, node)
	if err != nil {
		return "", err
	}
	in, err := cli.ContainerInspect(ctx, c.ID)
	if err != nil {
		return "", err
	}
	port := interBrokerPort(in)
	if port == 0 {
		return "", fmt.Errorf("%s: no inter-broker listener in the container's KAFKA_LISTENERS", node)
	}
	bootstrap := fmt.Sprintf("%s:%d", c.Labels[labelIP], port)
	cmd := cluster.ImageToolArgv(class, args, bootstrap)
	ctx, cancel := context.WithTimeout(ctx, cluster.ToolTimeout)
	defer cancel()
	out, code, err := execIn(ctx, cli, c.ID, "", cmd)
	if err != nil {
		return out, fmt.Errorf("%s on %s: %w", class, node, err)
	}
	if code != 0 {
		return out, fmt.Errorf("%s on %s exited with %d:\n%s", class, node, code, cluster.TailLines(out, 20))
	}
	return out, nil
}

// execIn runs cmd in container id as user ("" the image's) and returns
// what it wrote to stdout and stderr, and its exit code.
func execIn(ctx context.Context, cli *client.Client, id, user string, cmd []string) (string, int, error) {
	ex, err := cli.ContainerExecCreate(ctx, id, container.ExecOptions{User: user, Cmd: cmd, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return "", 0, err
	}
	att, err := cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return "", 0, err
	}
	defer att.Close()
	var out bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &out, att.Reader); err != nil {
		return out.String(), 0, err
	}
	res, err := cli.ContainerExecInspect(ctx, ex.ID)
	if err != nil {
		return out.String(), 0, err
	}
	return out.String(), res.ExitCode, nil
}
