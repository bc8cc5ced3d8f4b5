package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/runbook"
)

// Brokers added to a Kubernetes cluster are a node pool of their own, as
// Strimzi makes one: a StatefulSet <cluster>-broker of broker-only pods,
// whose ordinals continue the cluster's node ids, made from the combined
// pool's with the controller role and listener left out. broker add grows
// it by one pod; broker remove shrinks it from its end, as a StatefulSet
// scales down, and the pod's claim goes with it.

var _ cluster.Members = (*Backend)(nil)

// BrokerPool is the node pool of brokers added after the cluster was made.
const BrokerPool = "broker"

// AddBroker starts a broker-only node with the next id on release version
// ("" the cluster's) and returns it once its pod runs; the caller waits
// for it to register.
func (b *Backend) AddBroker(ctx context.Context, version string, progress cluster.Progress) (cluster.Node, error) {
	return b.addNode(ctx, version, BrokerPool, progress)
}

// poolSet is the StatefulSet's name of node pool pool.
func (b *Backend) poolSet(pool string) string { return b.name + "-" + pool }

// addNode grows node pool pool (BrokerPool or ControllerPool) by the next
// node id, on release version ("" the cluster's), making the pool's
// StatefulSet from the combined nodes' when it has none yet.
func (b *Backend) addNode(ctx context.Context, version, pool string, progress cluster.Progress) (cluster.Node, error) {
	a, all, err := b.clusterNodes(ctx)
	if err != nil {
		return cluster.Node{}, err
	}
	if len(all) == 0 {
		return cluster.Node{}, fmt.Errorf("no Kubernetes cluster %q is up", b.name)
	}
	id := all[len(all)-1].ID + 1
	combined, err := a.cs.AppsV1().StatefulSets(a.namespace).Get(ctx, b.statefulSet(), metav1.GetOptions{})
	if err != nil {
		return cluster.Node{}, fmt.Errorf("reading statefulset %s: %w", b.statefulSet(), err)
	}
	clusterKafka := combined.Spec.Template.Annotations[annKafka]
	if version == "" {
		version = clusterKafka
	}
	image := ImageName(version)
	if b.opts.Image != "" {
		if version != clusterKafka {
			return cluster.Node{}, fmt.Errorf("broker add --kafka %s: --image %s names one image for every release; leave it out", version, b.opts.Image)
		}
		image = b.opts.Image
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := a.cs.AppsV1().StatefulSets(a.namespace).Get(ctx, b.poolSet(pool), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			s, err = nodePool(combined, pool, b.poolSet(pool), id)
			if err != nil {
				return err
			}
			setRelease(s, image, version, clusterKafka)
			_, err = a.cs.AppsV1().StatefulSets(a.namespace).Create(ctx, s, metav1.CreateOptions{})
			return err
		}
		if err != nil {
			return err
		}
		if end := s.Spec.Ordinals.Start + *s.Spec.Replicas; int(end) != id {
			return fmt.Errorf("the %s pool's next pod would be k%d, but the cluster's next node id is %d (a pool's pods number on from its first)", pool, end, id)
		}
		setRelease(s, image, version, clusterKafka)
		*s.Spec.Replicas++
		_, err = a.cs.AppsV1().StatefulSets(a.namespace).Update(ctx, s, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return cluster.Node{}, err
	}
	pod := fmt.Sprintf("%s-%d", b.poolSet(pool), id)
	progress("k%d: pod %s on %s", id, pod, image)
	p, err := b.waitPod(ctx, a, pod, "", progress)
	if err != nil {
		return cluster.Node{}, err
	}
	n := cluster.Node{Name: runbook.NodeName(id), ID: id, Address: b.address(*p), State: cluster.Running, Added: true}
	if version != clusterKafka {
		n.Kafka = version
	}
	return n, nil
}

// RemoveBroker stops an added broker cleanly and scales the broker pool
// down by its pod, which must be the pool's last; its claim goes with it.
// The caller unregisters it.
func (b *Backend) RemoveBroker(ctx context.Context, node string, progress cluster.Progress) error {
	a, n, err := b.node(ctx, node)
	if err != nil {
		return err
	}
	pool := n.Pod.Labels[labelPool]
	if pool != BrokerPool && pool != ControllerPool {
		return fmt.Errorf("broker remove %s: only a node added by broker add or voter add can go on the kubernetes backend (a StatefulSet scales down from its end, and the combined pool's are the cluster's first nodes)", node)
	}
	set := b.poolSet(pool)
	s, err := a.cs.AppsV1().StatefulSets(a.namespace).Get(ctx, set, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if last := int(s.Spec.Ordinals.Start+*s.Spec.Replicas) - 1; last != n.ID {
		return fmt.Errorf("broker remove %s: a StatefulSet scales down from its end, and the %s pool ends at k%d: remove k%d first", node, pool, last, last)
	}
	if err := b.Apply(ctx, cluster.Stop, []string{node}, progress); err != nil {
		return err
	}
	if err := b.keepLog(ctx, a, n); err != nil {
		return fmt.Errorf("broker remove %s: %w", node, err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := a.cs.AppsV1().StatefulSets(a.namespace).Get(ctx, set, metav1.GetOptions{})
		if err != nil {
			return err
		}
		*s.Spec.Replicas--
		_, err = a.cs.AppsV1().StatefulSets(a.namespace).Update(ctx, s, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("broker remove %s: scaling statefulset %s down: %w", node, set, err)
	}
	return poll.Until(ctx, 250*time.Millisecond, downTimeout, progress, func(ctx context.Context) (bool, string, error) {
		_, err := a.cs.CoreV1().Pods(a.namespace).Get(ctx, n.Pod.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		return false, "pod " + n.Pod.Name + " is still there", err
	})
}

// nodePool is node pool pool's StatefulSet of one pod, node id, made
// from the combined pool's: the same pods but for the pool's labels and,
// for the broker pool, a broker's role and listeners.
func nodePool(combined *appsv1.StatefulSet, pool, name string, id int) (*appsv1.StatefulSet, error) {
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: combined.Namespace, Labels: combined.Labels},
		Spec:       *combined.Spec.DeepCopy(),
	}
	one := int32(1)
	s.Spec.Replicas = &one
	s.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: int32(id)}
	s.Spec.Selector.MatchLabels[labelPool] = pool
	tmpl := &s.Spec.Template
	tmpl.Labels[labelPool] = pool
	if pool != BrokerPool {
		return s, nil
	}
	tmpl.Labels[labelControllerRole] = "false"
	c := kafkaContainer(&tmpl.Spec)
	if c == nil {
		return nil, fmt.Errorf("statefulset %s has no container %s", combined.Name, containerKafka)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	ctl := strings.Split(env["KAFKA_CONTROLLER_LISTENER_NAMES"], ",")
	var listeners []string
	for _, l := range strings.Split(env["KAFKA_LISTENERS"], ",") {
		if name, _, _ := strings.Cut(l, "://"); !slices.Contains(ctl, name) {
			listeners = append(listeners, l)
		}
	}
	for i := range c.Env {
		switch c.Env[i].Name {
		case "KAFKA_PROCESS_ROLES":
			c.Env[i].Value = "broker"
		case "KAFKA_LISTENERS":
			c.Env[i].Value = strings.Join(listeners, ",")
		}
	}
	return s, nil
}

// setRelease puts the broker pool's next pod on image (version, when it
// is not the cluster's release).
func setRelease(s *appsv1.StatefulSet, image, version, clusterKafka string) {
	kafkaContainer(&s.Spec.Template.Spec).Image = image
	if version != clusterKafka {
		s.Spec.Template.Annotations[annNodeKafka] = version
	} else {
		delete(s.Spec.Template.Annotations, annNodeKafka)
	}
}

// waitPod waits until pod exists, is not the one with uid old, and runs
// its containers; a container that cannot start fails it at once.
func (b *Backend) waitPod(ctx context.Context, a *api, pod string, old string, progress cluster.Progress) (*corev1.Pod, error) {
	var made *corev1.Pod
	err := poll.Until(ctx, 250*time.Millisecond, podsTimeout, progress, func(ctx context.Context) (bool, string, error) {
		p, err := a.cs.CoreV1().Pods(a.namespace).Get(ctx, pod, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, "pod " + pod + " not made yet", nil
		}
		if err != nil {
			return false, "", err
		}
		if string(p.UID) == old {
			return false, "the old pod " + pod + " is terminating", nil
		}
		if err := podTrouble(*p); err != nil {
			return false, "", err
		}
		if !running(*p, containerKafka) || !running(*p, containerFaults) {
			return false, fmt.Sprintf("pod %s: %s", p.Name, unscheduled(*p)), nil
		}
		made = p
		return true, "", nil
	})
	return made, err
}
