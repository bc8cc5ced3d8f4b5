package kubernetes

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
)

// Logs opens a node's broker log: its kafka container's log (the
// supervisor's lines and the broker's), through the pod log API. The
// container outlives kill and start, so the log holds every start of the
// broker in that pod; what the node's earlier pods logged (before a move
// to another release made its pod again) comes first.
func (b *Backend) Logs(ctx context.Context, name string) (io.ReadCloser, error) {
	a, all, err := b.clusterNodes(ctx)
	if err != nil {
		return nil, err
	}
	rc, err := b.kafkaLog(ctx, a, all, name)
	if err != nil {
		return nil, err
	}
	return b.earlier.Before(name, rc), nil
}

// kafkaLog opens the kafka container's log of node name among all.
func (b *Backend) kafkaLog(ctx context.Context, a *api, all []node, name string) (io.ReadCloser, error) {
	ns, err := b.byName(all, []string{name})
	if err != nil {
		return nil, err
	}
	rc, err := a.podLog(ctx, ns[0].Pod.Name)
	if err != nil {
		return nil, fmt.Errorf("log of %s (pod %s): %w", name, ns[0].Pod.Name, err)
	}
	return rc, nil
}

// podLog opens the kafka container's log of pod.
func (a *api) podLog(ctx context.Context, pod string) (io.ReadCloser, error) {
	return a.cs.CoreV1().Pods(a.namespace).GetLogs(pod, &corev1.PodLogOptions{Container: containerKafka}).Stream(ctx)
}

// keepLog keeps what node n's pod logged, before the pod goes (made
// again on another release, or a pool scaled down by it): the run's
// evidence reads it at the end.
func (b *Backend) keepLog(ctx context.Context, a *api, n node) error {
	rc, err := a.podLog(ctx, n.Pod.Name)
	if err == nil {
		err = b.earlier.Keep(n.Name, rc)
	}
	if err != nil {
		return fmt.Errorf("%s: reading pod %s's log before it goes: %w", n.Name, n.Pod.Name, err)
	}
	return nil
}
