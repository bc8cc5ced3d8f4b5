package kubernetes

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/poll"
)

var _ cluster.Resetter = (*Backend)(nil)

// Reset makes the cluster new on its own release, as the run after one
// that moved nodes to another release (or finalized a feature level,
// which cannot be undone) needs: the StatefulSets (the broker pool's too)
// and the nodes' claims are deleted, and the combined nodes' StatefulSet
// made again from the one there was, on the cluster's image, under a new
// cluster id, without the nodes' own releases; the Service, scripts and
// clients' pod stay. The caller waits
// for the cluster to be healthy.
func (b *Backend) Reset(ctx context.Context, progress cluster.Progress) error {
	a, err := b.client(ctx)
	if err != nil {
		return err
	}
	old, err := a.cs.AppsV1().StatefulSets(a.namespace).Get(ctx, b.statefulSet(), metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reset: reading statefulset %s: %w", b.statefulSet(), err)
	}
	fresh, err := b.remade(old)
	if err != nil {
		return err
	}
	progress("making cluster %q new on Kafka %s: deleting its nodes and their volume claims", b.name, fresh.Spec.Template.Annotations[annKafka])
	zero := int64(0)
	background := metav1.DeletePropagationBackground
	del := metav1.DeleteOptions{GracePeriodSeconds: &zero, PropagationPolicy: &background}
	for _, name := range []string{old.Name, b.poolSet(BrokerPool), b.poolSet(ControllerPool)} { // the nodes added go too
		if err := a.cs.AppsV1().StatefulSets(a.namespace).Delete(ctx, name, del); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("reset: deleting statefulset %s: %w", name, err)
		}
	}
	nodeSel := metav1.ListOptions{LabelSelector: labelStrimziCluster + "=" + b.name}
	err = poll.Until(ctx, 250*time.Millisecond, downTimeout, progress, func(ctx context.Context) (bool, string, error) {
		pods, err := a.cs.CoreV1().Pods(a.namespace).List(ctx, nodeSel)
		if err != nil {
			return false, "", err
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil {
				if err := a.cs.CoreV1().Pods(a.namespace).Delete(ctx, p.Name, del); err != nil && !apierrors.IsNotFound(err) {
					return false, "", err
				}
			}
		}
		claims, err := a.cs.CoreV1().PersistentVolumeClaims(a.namespace).List(ctx, metav1.ListOptions{LabelSelector: b.owned()})
		if err != nil {
			return false, "", err
		}
		for _, c := range claims.Items {
			if c.DeletionTimestamp == nil {
				if err := a.cs.CoreV1().PersistentVolumeClaims(a.namespace).Delete(ctx, c.Name, del); err != nil && !apierrors.IsNotFound(err) {
					return false, "", err
				}
			}
		}
		return len(pods.Items) == 0 && len(claims.Items) == 0, fmt.Sprintf("%d node pods and %d volume claims still there", len(pods.Items), len(claims.Items)), nil
	})
	if err != nil {
		return fmt.Errorf("reset: waiting for the old nodes to go: %w", err)
	}
	if _, err := a.cs.AppsV1().StatefulSets(a.namespace).Create(ctx, fresh, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("reset: creating statefulset %s: %w", fresh.Name, err)
	}
	b.mu.Lock()
	b.next = nil
	b.mu.Unlock()
	b.states.forget()
	b.earlier.Forget()
	return b.waitPods(ctx, a, int(*fresh.Spec.Replicas), progress)
}

// remade is the StatefulSet that Reset creates in place of old: its
// labels, annotations and spec, the kafka container on the cluster's
// image, the template without a node's own release, and a new cluster id.
func (b *Backend) remade(old *appsv1.StatefulSet) (*appsv1.StatefulSet, error) {
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: old.Name, Namespace: old.Namespace, Labels: old.Labels, Annotations: old.Annotations},
		Spec:       *old.Spec.DeepCopy(),
	}
	tmpl := &s.Spec.Template
	version := tmpl.Annotations[annKafka]
	c := kafkaContainer(&tmpl.Spec)
	if c == nil || version == "" {
		return nil, fmt.Errorf("reset: statefulset %s has no container %s or no annotation %s: take the cluster down and start it again", old.Name, containerKafka, annKafka)
	}
	if b.opts.Image == "" {
		c.Image = ImageName(version)
	}
	delete(tmpl.Annotations, annNodeKafka)
	tmpl.Annotations[annCreated] = time.Now().UTC().Format(time.RFC3339)
	id := false
	for i := range c.Env {
		if c.Env[i].Name == "CLUSTER_ID" {
			c.Env[i] = corev1.EnvVar{Name: "CLUSTER_ID", Value: cluster.RandomUUID()}
			id = true
		}
	}
	if !id {
		return nil, fmt.Errorf("reset: the kafka container of statefulset %s has no CLUSTER_ID: take the cluster down and start it again", old.Name)
	}
	return s, nil
}
