package docker

import (
	"bytes"
	"context"
	"fmt"

	"github.com/docker/docker/api/types/container"
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
	ex, err := cli.ContainerExecCreate(ctx, c.ID, container.ExecOptions{Cmd: cmd, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", node, class, err)
	}
	att, err := cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", node, class, err)
	}
	defer att.Close()
	var out bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &out, att.Reader); err != nil {
		return out.String(), fmt.Errorf("%s on %s: %w", class, node, err)
	}
	res, err := cli.ContainerExecInspect(ctx, ex.ID)
	if err != nil {
		return out.String(), err
	}
	if res.ExitCode != 0 {
		return out.String(), fmt.Errorf("%s on %s exited with %d:\n%s", class, node, res.ExitCode, cluster.TailLines(out.String(), 20))
	}
	return out.String(), nil
}
