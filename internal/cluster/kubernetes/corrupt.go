package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
	corev1 "k8s.io/api/core/v1"
)

var _ cluster.Corrupter = (*Backend)(nil)

// dataMount is where kubernetes.yaml mounts a node's volume, in its kafka
// container and its faults container alike; the log directory is data/
// under it (KAFKA_LOG_DIRS).
const dataMount = "/var/lib/kafka"

// Corrupt damages the newest segment of a partition in a stopped node's
// log directory, from inside its pod: this kafkabook binary, copied into
// the faults container (root), which mounts the node's volume, runs
// cluster.CorruptLogDir there (the hidden role cluster.CorruptSubcommand)
// and says what it did. The broker must be down: a running one holds its
// segment open and would write over the damage.
func (b *Backend) Corrupt(ctx context.Context, node string, c cluster.Corruption) (cluster.Corrupted, error) {
	a, n, err := b.node(ctx, node)
	if err != nil {
		return cluster.Corrupted{}, err
	}
	if !running(n.Pod, containerFaults) {
		return cluster.Corrupted{}, fmt.Errorf("%s: pod %s is not running", node, n.Pod.Name)
	}
	if st, _ := b.brokerState(ctx, a, n); st == cluster.Running || st == cluster.Paused {
		return cluster.Corrupted{}, fmt.Errorf("%s is %s: stop or kill it before corrupting its log (a running broker holds the segment open)", node, st)
	}
	faults := container(&n.Pod.Spec, containerFaults)
	if !slices.ContainsFunc(faults.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == "data" && m.MountPath == dataMount }) {
		return cluster.Corrupted{}, fmt.Errorf("%s: pod %s's faults container does not mount the node's volume at %s, which corrupt needs (kafkabook's kubernetes.yaml does)", node, n.Pod.Name, dataMount)
	}
	logDir := ""
	for _, e := range kafkaContainer(&n.Pod.Spec).Env {
		if e.Name == "KAFKA_LOG_DIRS" {
			logDir = e.Value
		}
	}
	if !strings.HasPrefix(logDir, dataMount+"/") || strings.Contains(logDir, ",") {
		return cluster.Corrupted{}, fmt.Errorf("%s's KAFKA_LOG_DIRS is %q: corrupt needs one log directory on the node's volume (%s)", node, logDir, dataMount)
	}
	exe, err := copyExe(ctx, a, n)
	if err != nil {
		return cluster.Corrupted{}, err
	}
	arg, _ := json.Marshal(c) // strings and numbers always encode
	out, err := a.run(ctx, n.Pod.Name, containerFaults, exe, cluster.CorruptSubcommand, logDir, node, string(arg))
	if err != nil {
		return cluster.Corrupted{}, fmt.Errorf("corrupt %s: %w", node, err)
	}
	var done cluster.Corrupted
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &done); err != nil {
		return cluster.Corrupted{}, fmt.Errorf("corrupt %s: its answer %q: %w", node, out, err)
	}
	return done, nil
}
