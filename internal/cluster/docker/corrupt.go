package docker

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

var _ cluster.Corrupter = (*Backend)(nil)

// Corrupt damages the newest segment of a partition in a stopped node's
// log directory, where the Docker host keeps it: the source of the
// container's mount at its KAFKA_LOG_DIRS (a volume's directory under the
// daemon's root, or a bind-mounted one). That directory must be on this
// machine, as it is when the daemon runs here; the container must not be
// running, since a running broker holds its segment open and would write
// over the damage.
func (b *Backend) Corrupt(ctx context.Context, node string, c cluster.Corruption) (cluster.Corrupted, error) {
	cli, sum, err := b.container(ctx, node)
	if err != nil {
		return cluster.Corrupted{}, err
	}
	in, err := cli.ContainerInspect(ctx, sum.ID)
	if err != nil {
		return cluster.Corrupted{}, err
	}
	if in.State != nil && in.State.Running {
		return cluster.Corrupted{}, fmt.Errorf("%s is running: stop or kill it before corrupting its log (a running broker holds the segment open)", node)
	}
	logDir := ""
	for _, e := range in.Config.Env {
		if v, ok := strings.CutPrefix(e, "KAFKA_LOG_DIRS="); ok {
			logDir = v
		}
	}
	if logDir == "" || strings.Contains(logDir, ",") {
		return cluster.Corrupted{}, fmt.Errorf("%s's container sets KAFKA_LOG_DIRS to %q: corrupt needs one log directory", node, logDir)
	}
	for _, m := range in.Mounts {
		if m.Destination != logDir {
			continue
		}
		if _, err := os.Stat(m.Source); err != nil {
			return cluster.Corrupted{}, fmt.Errorf("%s's log directory is %s on the Docker host, which this machine cannot reach (%v): corrupt needs the daemon on this machine", node, m.Source, err)
		}
		return cluster.CorruptLogDir(m.Source, node, c)
	}
	return cluster.Corrupted{}, fmt.Errorf("%s's log directory %s is in no mount of its container: its data would not outlive the container", node, logDir)
}
