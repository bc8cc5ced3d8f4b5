package kubernetes

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Exec runs argv in a container of a pod of the backend's namespace, for
// tests that look from inside the cluster.
func (b *Backend) Exec(ctx context.Context, pod, container string, argv ...string) (string, error) {
	a, err := b.client(ctx)
	if err != nil {
		return "", err
	}
	return a.run(ctx, pod, container, argv...)
}

// PodIP is a pod's address.
func (b *Backend) PodIP(ctx context.Context, pod string) (string, error) {
	a, err := b.client(ctx)
	if err != nil {
		return "", err
	}
	p, err := a.cs.CoreV1().Pods(a.namespace).Get(ctx, pod, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return p.Status.PodIP, nil
}
