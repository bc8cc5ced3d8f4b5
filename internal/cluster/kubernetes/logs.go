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
	a, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	all, err := b.nodes(ctx, a)
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
	rc, err := a.cs.CoreV1().Pods(a.namespace).GetLogs(ns[0].Pod.Name, &corev1.PodLogOptions{Container: containerKafka}).Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("log of %s (pod %s): %w", name, ns[0].Pod.Name, err)
	}
	return rc, nil
}
