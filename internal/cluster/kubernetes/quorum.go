package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// A dynamic controller quorum (KIP-853, cluster.QuorumDynamic) on
// Kubernetes: the combined nodes' controller.quorum.voters become their
// bootstrap servers, and KAFKABOOK_INITIAL_CONTROLLERS names every initial
// voter with a directory id; the supervisor (kubernetes.yaml) advertises
// each controller's listener, formats an initial voter with the list and
// any other controller with none, as an observer. A controller added
// later (voter add) is a pod of a pool of its own, <cluster>-controller.

var _ cluster.Controllers = (*Backend)(nil)

// ControllerPool is the node pool of controllers added after the cluster
// was made (voter add).
const ControllerPool = "controller"

// annQuorum is the quorum a cluster was formatted with, on its pods.
const annQuorum = "kafkabook.io/quorum"

// applyQuorum turns the manifest's static quorum into a dynamic one.
func (m *manifest) applyQuorum() error {
	c := kafkaContainer(&m.StatefulSet.Spec.Template.Spec)
	i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "KAFKA_CONTROLLER_QUORUM_VOTERS" })
	if i < 0 || c.Env[i].Value == "" {
		return fmt.Errorf("kubernetes.yaml: the kafka container sets no KAFKA_CONTROLLER_QUORUM_VOTERS, which a dynamic quorum is made from")
	}
	var initial, bootstrap []string
	for _, v := range strings.Split(c.Env[i].Value, ",") {
		id, addr, ok := strings.Cut(v, "@")
		if !ok {
			return fmt.Errorf("kubernetes.yaml: KAFKA_CONTROLLER_QUORUM_VOTERS entry %q is not ID@HOST:PORT", v)
		}
		initial = append(initial, id+"@"+addr+":"+cluster.RandomUUID())
		bootstrap = append(bootstrap, addr)
	}
	c.Env = slices.Delete(c.Env, i, i+1)
	c.Env = append(c.Env,
		corev1.EnvVar{Name: "KAFKA_CONTROLLER_QUORUM_BOOTSTRAP_SERVERS", Value: strings.Join(bootstrap, ",")},
		corev1.EnvVar{Name: "KAFKABOOK_INITIAL_CONTROLLERS", Value: strings.Join(initial, ",")})
	return nil
}

// AddController starts a new broker and controller, the next node id, in
// the controller pool, formatted to join the dynamic quorum as an
// observer; the caller makes it a voter.
func (b *Backend) AddController(ctx context.Context, version string, progress cluster.Progress) (cluster.Node, error) {
	return b.addNode(ctx, version, ControllerPool, progress)
}
