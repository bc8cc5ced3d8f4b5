package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// clients is where kafkabook's own clients run for one cluster: a pod in
// the cluster's namespace (`<cluster>-clients`, from the image the
// brokers run), so that they resolve the brokers' in-cluster names and
// meet the network faults a pod meets. kafkabook's own connections
// (admin, sampler, reads) dial through a relay there (relay.go); every
// client process (franz-go's producer driver, the java, spring and
// librdkafka drivers, consumer group members) starts there (launch.go,
// python.go), after the files it needs are copied in (copy.go).
type clients struct {
	api       *api
	pod       string
	container string // "clients", in the deployed pod and the attached one
	exe       string // this kafkabook binary, at the same path in the pod

	mu     sync.Mutex
	copied map[string]string // path → the content key copied
	ready  bool              // the pod ran and exe was copied
	python string            // the pod's python3 major.minor, once asked (python.go)
}

// newClients is the client pod called pod; the pod itself is made by the
// deploy (kubernetes.yaml) or, when attached, by createClientPod.
func newClients(a *api, pod string) (*clients, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("kubernetes: finding this kafkabook binary to copy into the client pod: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return nil, fmt.Errorf("kubernetes: finding this kafkabook binary to copy into the client pod: %w", err)
	}
	return &clients{api: a, pod: pod, container: containerClients, exe: exe, copied: map[string]string{}}, nil
}

// prepare waits for the client pod to run and copies this kafkabook
// binary into it, once.
func (c *clients) prepare(ctx context.Context) error {
	c.mu.Lock()
	ready := c.ready
	c.mu.Unlock()
	if ready {
		return nil
	}
	if err := c.waitRunning(ctx, 2*time.Minute); err != nil {
		return err
	}
	if err := c.copyIn(ctx, c.exe); err != nil {
		return err
	}
	c.mu.Lock()
	c.ready = true
	c.mu.Unlock()
	return nil
}

// waitRunning waits until the client pod's phase is Running.
func (c *clients) waitRunning(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		p, err := c.api.cs.CoreV1().Pods(c.api.namespace).Get(ctx, c.pod, metav1.GetOptions{})
		switch {
		case err == nil && p.Status.Phase == corev1.PodRunning:
			return nil
		case err == nil && (p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded):
			return fmt.Errorf("kubernetes: the client pod %s/%s ended (%s): %s", c.api.namespace, c.pod, p.Status.Phase, p.Status.Message)
		case err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil:
			return fmt.Errorf("kubernetes: reading the client pod %s/%s: %w", c.api.namespace, c.pod, err)
		}
		select {
		case <-ctx.Done():
			why := "not found"
			if err == nil {
				why = "phase " + string(p.Status.Phase) + podWaiting(p)
			}
			return fmt.Errorf("kubernetes: the client pod %s/%s is not running after %v (%s): see kubectl describe pod", c.api.namespace, c.pod, limit, why)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// podWaiting is why a pod's containers wait, for messages.
func podWaiting(p *corev1.Pod) string {
	for _, s := range p.Status.ContainerStatuses {
		if w := s.State.Waiting; w != nil {
			return fmt.Sprintf("; container %s waits: %s %s", s.Name, w.Reason, w.Message)
		}
	}
	return ""
}

// labelClientsOf marks the client pod kafkabook creates next to a cluster
// it attached to (with labelManagedBy): it is found and removed by them,
// and never carries the cluster's own labels.
const labelClientsOf = "kafkabook.io/clients-of"

// createClientPod creates the client pod of an attached cluster from
// image, unless it exists.
func (c *clients) createClientPod(ctx context.Context, cluster, image string) error {
	zero, root := int64(0), int64(0)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:   c.pod,
			Labels: map[string]string{labelManagedBy: managedBy, labelClientsOf: cluster},
		},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: &zero,
			Containers: []corev1.Container{{
				Name: containerClients, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
				Command: []string{"sleep", "infinity"},
				// Root, as in kubernetes.yaml: files go to the paths they
				// have on this machine, wherever those are.
				SecurityContext: &corev1.SecurityContext{RunAsUser: &root},
			}},
		},
	}
	_, err := c.api.cs.CoreV1().Pods(c.api.namespace).Create(ctx, pod, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		p, gerr := c.api.cs.CoreV1().Pods(c.api.namespace).Get(ctx, c.pod, metav1.GetOptions{})
		if gerr != nil {
			return gerr
		}
		if p.Labels[labelClientsOf] != cluster {
			return fmt.Errorf("kubernetes: pod %s/%s exists and is not kafkabook's client pod of %s (label %s): remove it or attach in another namespace", c.api.namespace, c.pod, cluster, labelClientsOf)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("kubernetes: creating the client pod %s/%s: %w", c.api.namespace, c.pod, err)
	}
	return nil
}

// deleteClientPod removes the client pod of an attached cluster, only if
// kafkabook made it, and waits until it is gone.
func (c *clients) deleteClientPod(ctx context.Context, cluster string) error {
	pods := c.api.cs.CoreV1().Pods(c.api.namespace)
	p, err := pods.Get(ctx, c.pod, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if p.Labels[labelClientsOf] != cluster || p.Labels[labelManagedBy] != managedBy {
		return fmt.Errorf("kubernetes: pod %s/%s was not made by kafkabook for %s: left alone", c.api.namespace, c.pod, cluster)
	}
	zero := int64(0)
	uid := p.UID
	err = pods.Delete(ctx, c.pod, metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("kubernetes: removing the client pod %s/%s: %w", c.api.namespace, c.pod, err)
	}
	for deadline := time.Now().Add(time.Minute); ; {
		_, err := pods.Get(ctx, c.pod, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			c.mu.Lock()
			c.ready, c.copied = false, map[string]string{}
			c.mu.Unlock()
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("kubernetes: the client pod " + c.api.namespace + "/" + c.pod + " is still there a minute after its removal")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
}
