package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/poll"
)

// downTimeout bounds the wait for the API server to forget what down
// deleted.
const downTimeout = 90 * time.Second

// Down deletes what the cluster created — the objects labelled
// app.kubernetes.io/managed-by=kafkabook and kafkabook.io/cluster=<name>
// in its namespace, and what Kubernetes made for them with those labels
// (the nodes' volume claims, controller revisions, endpoint slices) — and nothing else, pods without
// a grace period; then it waits until none of it is listed any more. With
// nothing to remove it succeeds.
func (b *Backend) Down(ctx context.Context, progress cluster.Progress) error {
	a, err := b.client(ctx)
	if err != nil {
		return err
	}
	sel := metav1.ListOptions{LabelSelector: b.owned()}
	zero := int64(0)
	background := metav1.DeletePropagationBackground
	del := metav1.DeleteOptions{GracePeriodSeconds: &zero, PropagationPolicy: &background}
	var errs []error
	keep := func(err error) {
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	// The StatefulSet first, so that its controller makes no new pod.
	sets, err := a.cs.AppsV1().StatefulSets(a.namespace).List(ctx, sel)
	if err != nil {
		return err
	}
	for _, s := range sets.Items {
		progress("deleting statefulset %s", s.Name)
		keep(a.cs.AppsV1().StatefulSets(a.namespace).Delete(ctx, s.Name, del))
	}
	if pods, err := a.cs.CoreV1().Pods(a.namespace).List(ctx, sel); err == nil {
		for _, p := range pods.Items {
			progress("deleting pod %s", p.Name)
			keep(a.cs.CoreV1().Pods(a.namespace).Delete(ctx, p.Name, del))
		}
	} else {
		keep(err)
	}
	if svcs, err := a.cs.CoreV1().Services(a.namespace).List(ctx, sel); err == nil {
		for _, s := range svcs.Items {
			progress("deleting service %s", s.Name)
			keep(a.cs.CoreV1().Services(a.namespace).Delete(ctx, s.Name, del))
		}
	} else {
		keep(err)
	}
	if cms, err := a.cs.CoreV1().ConfigMaps(a.namespace).List(ctx, sel); err == nil {
		for _, c := range cms.Items {
			progress("deleting configmap %s", c.Name)
			keep(a.cs.CoreV1().ConfigMaps(a.namespace).Delete(ctx, c.Name, del))
		}
	} else {
		keep(err)
	}
	// The nodes' claims (their volumes go as the StorageClass's reclaim
	// policy says).
	if pvcs, err := a.cs.CoreV1().PersistentVolumeClaims(a.namespace).List(ctx, sel); err == nil {
		for _, c := range pvcs.Items {
			progress("deleting persistentvolumeclaim %s", c.Name)
			keep(a.cs.CoreV1().PersistentVolumeClaims(a.namespace).Delete(ctx, c.Name, del))
		}
	} else {
		keep(err)
	}
	if revs, err := a.cs.AppsV1().ControllerRevisions(a.namespace).List(ctx, sel); err == nil {
		for _, r := range revs.Items {
			keep(a.cs.AppsV1().ControllerRevisions(a.namespace).Delete(ctx, r.Name, del))
		}
	} else {
		keep(err)
	}
	if eps, err := a.cs.DiscoveryV1().EndpointSlices(a.namespace).List(ctx, sel); err == nil {
		for _, e := range eps.Items {
			keep(a.cs.DiscoveryV1().EndpointSlices(a.namespace).Delete(ctx, e.Name, del))
		}
	} else {
		keep(err)
	}
	var left []string
	err = poll.Until(ctx, 250*time.Millisecond, downTimeout, progress, func(ctx context.Context) (bool, string, error) {
		l, err := b.Leftovers(ctx)
		if err != nil {
			return false, "", err
		}
		left = l
		return len(l) == 0, fmt.Sprintf("waiting for %d objects to go", len(l)), nil
	})
	if err == nil {
		return nil
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "Kubernetes cluster %s (namespace %s) is not fully removed (%v); what remains:\n", b.name, a.namespace, err)
	for _, l := range left {
		fmt.Fprintf(&msg, "  - %s\n", l)
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(&msg, "errors: %v\n", err)
	}
	fmt.Fprintf(&msg, "then run `kafkabook cluster down --backend kubernetes --namespace %s --name %s` again: it retries", a.namespace, b.name)
	return errors.New(msg.String())
}

// Leftovers lists what of the cluster exists, each with the kubectl
// command that removes it.
func (b *Backend) Leftovers(ctx context.Context) ([]string, error) {
	a, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	sel := metav1.ListOptions{LabelSelector: b.owned()}
	var out []string
	add := func(kind, name string) {
		out = append(out, fmt.Sprintf("%s %s: remove with `kubectl -n %s delete %s %s`", kind, name, a.namespace, kind, name))
	}
	sets, err := a.cs.AppsV1().StatefulSets(a.namespace).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, s := range sets.Items {
		add("statefulset", s.Name)
	}
	pods, err := a.cs.CoreV1().Pods(a.namespace).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, p := range pods.Items {
		add("pod", p.Name)
	}
	svcs, err := a.cs.CoreV1().Services(a.namespace).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, s := range svcs.Items {
		add("service", s.Name)
	}
	cms, err := a.cs.CoreV1().ConfigMaps(a.namespace).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, c := range cms.Items {
		add("configmap", c.Name)
	}
	pvcs, err := a.cs.CoreV1().PersistentVolumeClaims(a.namespace).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, c := range pvcs.Items {
		add("persistentvolumeclaim", c.Name)
	}
	revs, err := a.cs.AppsV1().ControllerRevisions(a.namespace).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, r := range revs.Items {
		add("controllerrevision", r.Name)
	}
	eps, err := a.cs.DiscoveryV1().EndpointSlices(a.namespace).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, e := range eps.Items {
		add("endpointslice", e.Name)
	}
	return out, nil
}
