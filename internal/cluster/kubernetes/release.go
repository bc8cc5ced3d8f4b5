package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// A node moves to another Kafka release as a StatefulSet's pod does in a
// rolling update, one pod at a time and on the pod's own claim: the
// StatefulSet updates nothing by itself (OnDelete), so Release only notes
// the release, and the node's next start (restart, roll, after the stop)
// sets the pod template's image and deletes the node's pod, which the
// StatefulSet makes again from the template. Pods of other nodes keep the
// image they were made with until they are moved too. Settings of a
// node's own (Configure) need no new pod: they are a file on the node's
// volume that the supervisor reads at each start of the broker.

var (
	_ cluster.Releaser   = (*Backend)(nil)
	_ cluster.Configurer = (*Backend)(nil)
)

// Annotations of a node's own release and settings, on its pod.
const (
	annNodeKafka  = "kafkabook.io/node-kafka"  // the release it was moved to (restart --to)
	annNodeBroker = "kafkabook.io/node-broker" // JSON of its own settings (restart --set)
)

// ownSettings is the file on a node's volume that the supervisor reads
// before each start of the broker (kubernetes.yaml).
const ownSettings = "/var/lib/kafka/kafkabook.env"

// Release makes node run Kafka version from its next start, on the image
// kafkabook runs for that release; it checks first, where the API lets
// it, that the pod's Kubernetes node has that image.
func (b *Backend) Release(ctx context.Context, node, version string, progress cluster.Progress) error {
	if b.opts.Image != "" {
		return fmt.Errorf("restart --to: --image %s names one image for every release; leave it out, so that each release runs on its own image (kafkabook/kafka:VERSION)", b.opts.Image)
	}
	a, n, err := b.node(ctx, node)
	if err != nil {
		return err
	}
	image := ImageName(version)
	// The kubelet lists an image imported a moment ago with its next
	// node status, within seconds.
	have, known := b.nodeHasImage(ctx, a, n.Pod.Spec.NodeName, image)
	for end := time.Now().Add(15 * time.Second); known && !have && time.Now().Before(end); {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
		have, known = b.nodeHasImage(ctx, a, n.Pod.Spec.NodeName, image)
	}
	if known && !have {
		return fmt.Errorf("restart --to %s: Kubernetes node %s has no image %s, and kafkabook does not pull it: build and import it, e.g. `scripts/kubernetes-up.sh --kafka %s` on a cluster it made, or `kafkabook image build --kafka %s && docker save %s | ctr -n k8s.io images import -` on the node", version, n.Pod.Spec.NodeName, image, version, version, image)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next == nil {
		b.next = map[string]string{}
	}
	b.next[node] = version
	return nil
}

// nodeHasImage says whether the Kubernetes node lists image among those
// it holds; known is false when the node cannot be read (no permission
// to read nodes: the pod's start will tell).
func (b *Backend) nodeHasImage(ctx context.Context, a *api, nodeName, image string) (have, known bool) {
	if nodeName == "" {
		return false, false
	}
	kn, err := a.cs.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		return false, false
	}
	for _, im := range kn.Status.Images {
		for _, name := range im.Names {
			if name == image || name == "docker.io/"+image {
				return true, true
			}
		}
	}
	// A node lists at most 50 images (the kubelet's default): beyond
	// that, absence says nothing.
	return false, len(kn.Status.Images) < 50
}

// Configure gives node settings of its own from its next start: the
// file the supervisor sources before it starts the broker, on the
// node's volume, so that they outlive a new pod; the pod's annotation
// says them to Status.
func (b *Backend) Configure(ctx context.Context, node string, set map[string]string) error {
	a, n, err := b.node(ctx, node)
	if err != nil {
		return err
	}
	var env strings.Builder
	for _, k := range slices.Sorted(maps.Keys(set)) {
		fmt.Fprintf(&env, "%s=%s\n", envKey(k), shellQuote(set[k]))
	}
	script := `umask 022; printf '%s' "$1" >"$2.tmp" && mv -f "$2.tmp" "$2"`
	if _, err := a.run(ctx, n.Pod.Name, containerKafka, "/bin/sh", "-c", script, "sh", env.String(), ownSettings); err != nil {
		return fmt.Errorf("%s: writing its settings: %w", node, err)
	}
	raw, _ := json.Marshal(set) // a map of strings always encodes
	return b.annotate(ctx, a, n.Pod.Name, string(raw))
}

// annotate records a node's own settings on its pod.
func (b *Backend) annotate(ctx context.Context, a *api, pod, settings string) error {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{annNodeBroker: settings}}})
	if _, err := a.cs.CoreV1().Pods(a.namespace).Patch(ctx, pod, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("annotating pod %s with its settings: %w", pod, err)
	}
	return nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// node finds one node of the cluster.
func (b *Backend) node(ctx context.Context, name string) (*api, node, error) {
	a, all, err := b.clusterNodes(ctx)
	if err != nil {
		return nil, node{}, err
	}
	ns, err := b.byName(all, []string{name})
	if err != nil {
		return nil, node{}, err
	}
	return a, ns[0], nil
}

// nextRelease returns and forgets the release node moves to when op is a
// start.
func (b *Backend) nextRelease(node string, op cluster.Op) (string, bool) {
	if op != cluster.Start {
		return "", false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.next[node]
	delete(b.next, node)
	return v, ok
}

// remake moves node n to Kafka version: the pod template's kafka
// container gets the release's image, and n's pod, whose broker is down,
// is deleted and waited for until the StatefulSet has made it again and
// its containers run (its supervisor starts the broker at once). The
// node's settings annotation moves to the new pod.
func (b *Backend) remake(ctx context.Context, a *api, n node, version string, progress cluster.Progress) error {
	image := ImageName(version)
	set := b.statefulSet()
	if pool := n.Pod.Labels[labelPool]; pool != Pool {
		set = b.poolSet(pool)
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := a.cs.AppsV1().StatefulSets(a.namespace).Get(ctx, set, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := kafkaContainer(&s.Spec.Template.Spec)
		if c == nil {
			return fmt.Errorf("statefulset %s has no container %s", s.Name, containerKafka)
		}
		c.Image = image
		if s.Spec.Template.Annotations == nil {
			s.Spec.Template.Annotations = map[string]string{}
		}
		s.Spec.Template.Annotations[annNodeKafka] = version
		_, err = a.cs.AppsV1().StatefulSets(a.namespace).Update(ctx, s, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: setting image %s in statefulset %s: %w", n.Name, image, set, err)
	}
	if err := b.keepLog(ctx, a, n); err != nil {
		return err
	}
	progress("%s: pod %s made again on %s", n.Name, n.Pod.Name, image)
	grace := int64(1)
	old := n.Pod.UID
	err = a.cs.CoreV1().Pods(a.namespace).Delete(ctx, n.Pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace, Preconditions: &metav1.Preconditions{UID: &old}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("%s: deleting pod %s: %w", n.Name, n.Pod.Name, err)
	}
	made, err := b.waitPod(ctx, a, n.Pod.Name, string(old), progress)
	if err != nil {
		return fmt.Errorf("%s: waiting for pod %s on %s: %w", n.Name, n.Pod.Name, image, err)
	}
	if c := kafkaContainer(&made.Spec); c == nil || c.Image != image {
		return fmt.Errorf("%s: pod %s was made again without image %s: is the statefulset's update strategy still OnDelete?", n.Name, made.Name, image)
	}
	if s, ok := n.Pod.Annotations[annNodeBroker]; ok {
		return b.annotate(ctx, a, made.Name, s)
	}
	return nil
}
