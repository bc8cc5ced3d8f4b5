package testcluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8s "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/kubernetes"
)

// Kubeconfig returns the kubeconfig a Kubernetes test uses — $KUBECONFIG,
// else kubectl's default, else the one scripts/kubernetes-up.sh writes —
// and checks that its API server answers and that a node has the image
// the backend runs (kafkabook/kafka:VERSION, imported, never pulled). It
// fails the test under CI=true, and skips it elsewhere, when not.
func Kubeconfig(t testing.TB) string {
	t.Helper()
	UnitLane(t)
	ctx := context.Background()
	var why string
	for _, kc := range []string{"", kubernetes.ScriptKubeconfig} {
		if kc != "" && os.Getenv("KUBECONFIG") != "" {
			break
		}
		if why = kubernetes.Available(ctx, kc); why == "" {
			if why = imageOnNode(ctx, kc, kubernetes.ImageName(Version())); why == "" {
				return kc
			}
			break
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("this test needs a Kubernetes cluster (scripts/kubernetes-up.sh --image %s): %s", kubernetes.ImageName(Version()), why)
	}
	t.Skipf("needs a Kubernetes cluster with %s on a node (scripts/kubernetes-up.sh --image %s): %s", kubernetes.ImageName(Version()), kubernetes.ImageName(Version()), why)
	return ""
}

// clientset connects to the API server of kubeconfig ("" as kubectl reads
// it).
func clientset(kubeconfig string) (k8s.Interface, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, err
	}
	return k8s.NewForConfig(cfg)
}

// imageOnNode says why no node has image ("" when one has).
func imageOnNode(ctx context.Context, kubeconfig, image string) string {
	cs, err := clientset(kubeconfig)
	if err != nil {
		return err.Error()
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	for _, n := range nodes.Items {
		for _, img := range n.Status.Images {
			for _, name := range img.Names {
				if name == image || strings.HasSuffix(name, "/"+image) {
					return ""
				}
			}
		}
	}
	return "no node has the image " + image + " (build it with `kafkabook image build`, import it with scripts/kubernetes-up.sh --image)"
}

// Namespace creates a namespace of its own for the test and deletes it
// when the test ends, pass or fail.
func Namespace(t testing.TB, kubeconfig string) string {
	t.Helper()
	cs, err := clientset(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ns := "kb-" + Name()
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"app.kubernetes.io/managed-by": "kafkabook-test"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete namespace %s: %v", ns, err)
		}
	})
	return ns
}

// StartKubernetes brings up a cluster of three nodes with the given broker
// overrides in a namespace of its own, and registers its removal, a check
// that nothing with its labels remains, and the namespace's deletion.
func StartKubernetes(t testing.TB, broker map[string]string) (*kubernetes.Backend, cluster.Status) {
	t.Helper()
	return StartKubernetesWith(t, cluster.Config{Kafka: Version(), Nodes: 3, Broker: broker})
}

// StartKubernetesWith is StartKubernetes as cfg says (its name and Ready
// are the test's): a cluster a test upgrades starts on an older release.
func StartKubernetesWith(t testing.TB, cfg cluster.Config) (*kubernetes.Backend, cluster.Status) {
	t.Helper()
	kc := Kubeconfig(t)
	if cfg.Kafka != Version() {
		KubernetesImageOf(t, cfg.Kafka)
	}
	ns := Namespace(t, kc)
	name := Name()
	b, err := kubernetes.New(name, kubernetes.Options{Kubeconfig: kc, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name, cfg.Ready = name, Ready
	return b, bringUp(t, name, b, cfg, func() ([]string, error) { return b.Leftovers(context.Background()) })
}

// KubernetesImageOf makes sure a node of the test's Kubernetes has
// kafkabook/kafka:VERSION: when none has, the image is built in the
// local Docker daemon and imported with scripts/kubernetes-up.sh --image,
// which works on the cluster that script made.
func KubernetesImageOf(t testing.TB, version string) {
	t.Helper()
	kc := Kubeconfig(t)
	image := kubernetes.ImageName(version)
	if imageOnNode(context.Background(), kc, image) == "" {
		return
	}
	DockerImageOf(t, version)
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "kubernetes-up.sh")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, script, "--image", image).CombinedOutput()
	if err != nil {
		t.Fatalf("importing %s into Kubernetes: %v\n%s", image, err, out)
	}
	// The kubelet lists a new image with its next node status.
	why := ""
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(time.Second) {
		if why = imageOnNode(context.Background(), kc, image); why == "" {
			return
		}
	}
	t.Fatalf("a minute after scripts/kubernetes-up.sh --image %s: %s", image, why)
}

// KubernetesClient is a client of the test's own on the Kubernetes API.
func KubernetesClient(t testing.TB, kubeconfig string) k8s.Interface {
	t.Helper()
	cs, err := clientset(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
