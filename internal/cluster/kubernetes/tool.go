package kubernetes

import (
	"context"
	"fmt"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

var _ cluster.Tools = (*Backend)(nil)

// Tool runs one of Kafka's command-line tools (its main class) in node's
// kafka container, with the jars the node runs on, as an operator runs
// kafka-features.sh with kubectl exec. ToolBootstrap is the broker's own
// listener in the pod, ToolConfig the server.properties the image's
// entrypoint wrote at the broker's last start.
func (b *Backend) Tool(ctx context.Context, node, class string, args []string) (string, error) {
	a, n, err := b.node(ctx, node)
	if err != nil {
		return "", err
	}
	if !running(n.Pod, containerKafka) {
		return "", fmt.Errorf("%s: pod %s is not running (phase %s)", node, n.Pod.Name, n.Pod.Status.Phase)
	}
	cmd := cluster.ImageToolArgv(class, args, "localhost:9092")
	ctx, cancel := context.WithTimeout(ctx, cluster.ToolTimeout)
	defer cancel()
	var out strings.Builder
	if err := a.stream(ctx, n.Pod.Name, containerKafka, cmd, nil, &out, &out); err != nil {
		if code := exitCode(err); code > 0 {
			return out.String(), fmt.Errorf("%s on %s exited with %d:\n%s", class, node, code, cluster.TailLines(out.String(), 20))
		}
		return out.String(), fmt.Errorf("%s on %s: %w", class, node, err)
	}
	return out.String(), nil
}
