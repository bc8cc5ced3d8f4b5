package kubernetes

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/kafkabook/kafkabook/internal/poll"
)

// podsTimeout bounds the wait for the pods' containers to start.
const podsTimeout = 3 * time.Minute

// ImageName is the image `kafkabook image build` makes for a Kafka
// version, which Up runs unless Options.Image names another.
func ImageName(version string) string { return "kafkabook/kafka:" + version }

// Up creates the cluster from kubernetes.yaml in the backend's namespace
// and returns once every broker is registered and unfenced. What an earlier
// cluster of the same name left behind is removed first; one that is up is
// an error. On error or cancellation it removes what it created.
func (b *Backend) Up(ctx context.Context, cfg cluster.Config, progress cluster.Progress) (cluster.Status, error) {
	start := time.Now()
	if cfg.Ready == nil {
		return cluster.Status{}, cluster.ErrNoReady
	}
	if cfg.PowerLoss {
		return cluster.Status{}, fmt.Errorf("the kubernetes backend cannot cut a node's power: nothing under a pod's volume can drop the broker's unsynced writes (use --backend local)")
	}
	a, err := b.client(ctx)
	if err != nil {
		return cluster.Status{}, err
	}
	if cfg.Kafka == "" {
		cfg.Kafka = kafkadist.Default
	}
	if cfg.Nodes == 0 {
		cfg.Nodes = 3
	}
	if _, err := a.cs.CoreV1().Namespaces().Get(ctx, a.namespace, metav1.GetOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return cluster.Status{}, fmt.Errorf("namespace %s does not exist: create it (`kubectl create namespace %s`) or name another with --namespace", a.namespace, a.namespace)
		}
		return cluster.Status{}, fmt.Errorf("the Kubernetes API server (%s): %w", a.cfg.Host, err)
	}
	if err := b.checkExisting(ctx, a, progress); err != nil {
		return cluster.Status{}, err
	}
	image, pull := ImageName(cfg.Kafka), corev1.PullNever
	if b.opts.Image != "" {
		image, pull = b.opts.Image, corev1.PullIfNotPresent
	}
	m, err := render(nil, b.newParams(a.namespace, cfg.Nodes, image, string(pull)))
	if err != nil {
		return cluster.Status{}, err
	}
	m.applyBroker(cfg.Broker)
	if cfg.Clock {
		if err := m.applyClock(); err != nil {
			return cluster.Status{}, err
		}
	}
	if cfg.Quorum == cluster.QuorumDynamic {
		if err := m.applyQuorum(); err != nil {
			return cluster.Status{}, err
		}
	}
	broker, _ := json.Marshal(cfg.Broker) // a map of strings always encodes
	if cfg.Broker == nil {
		broker = []byte("{}")
	}
	tmpl := &m.StatefulSet.Spec.Template
	if tmpl.Annotations == nil {
		tmpl.Annotations = map[string]string{}
	}
	tmpl.Annotations[annKafka] = cfg.Kafka
	tmpl.Annotations[annQuorum] = cmp.Or(cfg.Quorum, cluster.QuorumStatic)
	tmpl.Annotations[annBroker] = string(broker)
	tmpl.Annotations[annKept] = strconv.FormatBool(cfg.Keep)
	tmpl.Annotations[annOwner] = owner()
	tmpl.Annotations[annCreated] = time.Now().UTC().Format(time.RFC3339)
	progress("creating %d Kafka %s nodes (%s) in namespace %s from %s", cfg.Nodes, cfg.Kafka, b.statefulSet(), a.namespace, image)
	st, err := b.create(ctx, a, m, cfg, progress)
	if err != nil {
		// Remove whatever exists, even when ctx is done (Ctrl-C).
		if rmErr := b.Down(context.WithoutCancel(ctx), func(string, ...any) {}); rmErr != nil {
			err = fmt.Errorf("%w\n(and cleaning up failed: %v)", err, rmErr)
		}
		return cluster.Status{}, err
	}
	progress("cluster %s up after %.1fs", b.name, time.Since(start).Seconds())
	return st, nil
}

// owner names the process that started a cluster: host and pid.
func owner() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s %d", host, os.Getpid())
}

// checkExisting refuses to start over a cluster whose StatefulSet exists
// and removes the remains of one without.
func (b *Backend) checkExisting(ctx context.Context, a *api, progress cluster.Progress) error {
	if _, err := a.cs.AppsV1().StatefulSets(a.namespace).Get(ctx, b.statefulSet(), metav1.GetOptions{}); err == nil {
		return fmt.Errorf("cluster %q is already up in namespace %s: use it, or take it down first with `kafkabook cluster down --backend kubernetes --namespace %s --name %s`", b.name, a.namespace, a.namespace, b.name)
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	if pods, err := b.nodes(ctx, a); err == nil && len(pods) > 0 && pods[0].Pod.Labels[labelManagedBy] != managedBy {
		return fmt.Errorf("namespace %s has Kafka pods labelled %s=%s that kafkabook did not create (%s): pick another --name", a.namespace, labelStrimziCluster, b.name, pods[0].Pod.Name)
	}
	left, err := b.Leftovers(ctx)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		progress("removing what an earlier cluster %q left behind", b.name)
		return b.Down(ctx, progress)
	}
	return nil
}

// create makes the cluster's objects, waits for its pods and then for its
// brokers.
func (b *Backend) create(ctx context.Context, a *api, m *manifest, cfg cluster.Config, progress cluster.Progress) (cluster.Status, error) {
	ns := a.namespace
	if _, err := a.cs.CoreV1().ConfigMaps(ns).Create(ctx, m.ConfigMap, metav1.CreateOptions{}); err != nil {
		return cluster.Status{}, fmt.Errorf("create configmap %s: %w", m.ConfigMap.Name, err)
	}
	if _, err := a.cs.CoreV1().Services(ns).Create(ctx, m.Service, metav1.CreateOptions{}); err != nil {
		return cluster.Status{}, fmt.Errorf("create service %s: %w", m.Service.Name, err)
	}
	if _, err := a.cs.AppsV1().StatefulSets(ns).Create(ctx, m.StatefulSet, metav1.CreateOptions{}); err != nil {
		return cluster.Status{}, fmt.Errorf("create statefulset %s: %w", m.StatefulSet.Name, err)
	}
	if _, err := a.cs.CoreV1().Pods(ns).Create(ctx, m.Clients, metav1.CreateOptions{}); err != nil {
		return cluster.Status{}, fmt.Errorf("create pod %s: %w", m.Clients.Name, err)
	}
	if err := b.waitPods(ctx, a, cfg.Nodes, progress); err != nil {
		return cluster.Status{}, err
	}
	return b.waitReady(ctx, cfg.Ready, progress)
}

// waitPods waits until the broker pods and the clients' pod are scheduled
// and their containers run, telling how far they are; a container that
// cannot start (no image, a crash loop) fails it at once.
func (b *Backend) waitPods(ctx context.Context, a *api, n int, progress cluster.Progress) error {
	last := ""
	start := time.Now()
	return poll.Until(ctx, 250*time.Millisecond, podsTimeout, nil, func(ctx context.Context) (bool, string, error) {
		pods, err := a.cs.CoreV1().Pods(a.namespace).List(ctx, metav1.ListOptions{LabelSelector: b.owned()})
		if err != nil {
			return false, "", err
		}
		var scheduled, started int
		why := ""
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				scheduled++
			} else if why == "" {
				why = "; " + p.Name + ": " + unscheduled(p)
			}
			if err := podTrouble(p); err != nil {
				return false, "", err
			}
			all := len(p.Status.ContainerStatuses) == len(p.Spec.Containers)
			for _, cs := range p.Status.ContainerStatuses {
				all = all && cs.State.Running != nil
			}
			if all {
				started++
			}
		}
		want := n + 1
		status := fmt.Sprintf("pods: %d/%d scheduled, %d/%d with their containers started%s", scheduled, want, started, want, why)
		if status != last {
			progress("%s (%.0fs)", status, time.Since(start).Seconds())
			last = status
		}
		return len(pods.Items) == want && started == want, status, nil
	})
}

// podTrouble says why a pod's containers cannot start (no image, a crash
// loop, one ended), nil while they can.
func podTrouble(p corev1.Pod) error {
	statuses := append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...)
	for _, cs := range statuses {
		if w := cs.State.Waiting; w != nil {
			switch w.Reason {
			case "ErrImageNeverPull", "ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError", "CreateContainerError", "CrashLoopBackOff":
				return fmt.Errorf("pod %s, container %s: %s: %s%s", p.Name, cs.Name, w.Reason, w.Message, imageHint(w.Reason, cs.Image))
			}
		}
		if t := cs.State.Terminated; t != nil && (t.ExitCode != 0 || !slices.ContainsFunc(p.Spec.InitContainers, func(c corev1.Container) bool { return c.Name == cs.Name })) {
			return fmt.Errorf("pod %s, container %s ended: %s (exit %d): %s", p.Name, cs.Name, t.Reason, t.ExitCode, t.Message)
		}
	}
	return nil
}

// unscheduled says what keeps a pod from running: the scheduler's reason
// (a claim no volume was provisioned for, say), or its phase.
func unscheduled(p corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue && c.Message != "" {
			msg := c.Message
			if strings.Contains(msg, "PersistentVolumeClaim") {
				msg += " (each node's data is a claim of the default StorageClass: does the cluster have one that provisions volumes?)"
			}
			return msg
		}
	}
	return "phase " + string(p.Status.Phase)
}

// imageHint says how to get the image onto the nodes when it is missing.
func imageHint(reason, image string) string {
	if !strings.Contains(reason, "Image") {
		return ""
	}
	return fmt.Sprintf(" (kafkabook runs %s without pulling it: build it with `kafkabook image build` and import it into the node's container runtime, e.g. `docker save %s | ctr -n k8s.io images import -`, or name a pullable image with --image)", image, image)
}

// waitReady waits until every node's broker is registered and unfenced,
// failing early when a broker exits, and returns the cluster's status.
func (b *Backend) waitReady(ctx context.Context, ready cluster.Ready, progress cluster.Progress) (cluster.Status, error) {
	st, err := b.Status(ctx)
	if err != nil {
		return cluster.Status{}, err
	}
	access, err := b.Access(ctx)
	if err != nil {
		return cluster.Status{}, err
	}
	// Asking every pod costs an exec each: at most once every 2 s.
	var mu sync.Mutex
	var checked time.Time
	dead := func(ctx context.Context) string {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(checked) < 2*time.Second {
			return ""
		}
		checked = time.Now()
		return cluster.FirstDown(ctx, b)
	}
	tail := func(node string, lines int) string {
		return cluster.LogTail(ctx, b, node, "kafka container log", lines)
	}
	progress("brokers registering at %s", strings.Join(st.Bootstrap(), ","))
	if err := cluster.WaitBrokers(ctx, ready, access, st.Nodes, dead, tail, progress); err != nil {
		return cluster.Status{}, err
	}
	return b.Status(ctx)
}
