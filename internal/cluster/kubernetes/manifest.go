package kubernetes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/template"

	"github.com/kafkabook/kafkabook"
	"github.com/kafkabook/kafkabook/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// manifest is a cluster's objects, as kubernetes.yaml makes them.
type manifest struct {
	ConfigMap   *corev1.ConfigMap
	Service     *corev1.Service
	StatefulSet *appsv1.StatefulSet
	Clients     *corev1.Pod
}

// params fill in kubernetes.yaml.
type params struct {
	Name, Namespace, Pool, Service, Domain string
	Nodes                                  int
	Image, PullPolicy                      string
	ClusterID                              string
	Voters                                 string // controller.quorum.voters
	RF, MinISR                             int    // of the internal topics
}

// render fills in the template and decodes its objects; every object must
// be one of the four kinds, once, and carry the cluster's labels.
func render(data []byte, p params) (*manifest, error) {
	if data == nil {
		data = kafkabook.Kubernetes
	}
	tmpl, err := template.New("kubernetes.yaml").Option("missingkey=error").Parse(string(data))
	if err != nil {
		return nil, fmt.Errorf("kubernetes.yaml: %w", err)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, p); err != nil {
		return nil, fmt.Errorf("kubernetes.yaml: %w", err)
	}
	m := &manifest{}
	r := utilyaml.NewYAMLReader(bufio.NewReader(&buf))
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("kubernetes.yaml: document %d: %w", i, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("kubernetes.yaml: document %d: %w", i, err)
		}
		if err := m.add(obj); err != nil {
			return nil, fmt.Errorf("kubernetes.yaml: document %d: %w", i, err)
		}
	}
	if m.ConfigMap == nil || m.Service == nil || m.StatefulSet == nil || m.Clients == nil {
		return nil, errors.New("kubernetes.yaml: want one ConfigMap, Service, StatefulSet and Pod (the clients' pod)")
	}
	return m, m.check(p)
}

func (m *manifest) add(obj runtime.Object) error {
	dup := errors.New("a second object of its kind")
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		if m.ConfigMap != nil {
			return dup
		}
		m.ConfigMap = o
	case *corev1.Service:
		if m.Service != nil {
			return dup
		}
		m.Service = o
	case *appsv1.StatefulSet:
		if m.StatefulSet != nil {
			return dup
		}
		m.StatefulSet = o
	case *corev1.Pod:
		if m.Clients != nil {
			return dup
		}
		m.Clients = o
	default:
		return fmt.Errorf("kind %T: kafkabook creates a ConfigMap, a Service, a StatefulSet and a Pod, nothing else", obj)
	}
	return nil
}

// check makes sure down will find everything: each object and the pod
// template carry the cluster's labels, and the brokers Strimzi's.
func (m *manifest) check(p params) error {
	want := map[string]string{labelManagedBy: managedBy, labelCluster: p.Name}
	for kind, labels := range map[string]map[string]string{
		"ConfigMap": m.ConfigMap.Labels, "Service": m.Service.Labels, "StatefulSet": m.StatefulSet.Labels,
		"the StatefulSet's pods": m.StatefulSet.Spec.Template.Labels, "the clients' Pod": m.Clients.Labels,
	} {
		for k, v := range want {
			if labels[k] != v {
				return fmt.Errorf("kubernetes.yaml: %s needs the label %s: %s (down removes what has it)", kind, k, v)
			}
		}
	}
	for _, c := range m.StatefulSet.Spec.VolumeClaimTemplates {
		for k, v := range want {
			if c.Labels[k] != v {
				return fmt.Errorf("kubernetes.yaml: the StatefulSet's volume claim template %s needs the label %s: %s (down removes what has it)", c.Name, k, v)
			}
		}
	}
	tl := m.StatefulSet.Spec.Template.Labels
	if tl[labelStrimziCluster] != p.Name || tl[labelPool] != p.Pool {
		return fmt.Errorf("kubernetes.yaml: the StatefulSet's pods need the labels %s: %s and %s: %s (nodes are found by them)", labelStrimziCluster, p.Name, labelPool, p.Pool)
	}
	if m.Clients.Labels[labelStrimziCluster] != "" {
		return fmt.Errorf("kubernetes.yaml: the clients' Pod must not carry %s (it is no Kafka node)", labelStrimziCluster)
	}
	if kafkaContainer(&m.StatefulSet.Spec.Template.Spec) == nil || faultsContainer(&m.StatefulSet.Spec.Template.Spec) == nil {
		return fmt.Errorf("kubernetes.yaml: the StatefulSet's pods need the containers %s and %s", containerKafka, containerFaults)
	}
	return nil
}

// Container names in a broker pod, and the clients' pod's one.
const (
	containerKafka   = "kafka"
	containerFaults  = "faults"
	containerClients = "clients"
)

func container(spec *corev1.PodSpec, name string) *corev1.Container {
	for i := range spec.Containers {
		if spec.Containers[i].Name == name {
			return &spec.Containers[i]
		}
	}
	return nil
}

func kafkaContainer(spec *corev1.PodSpec) *corev1.Container  { return container(spec, containerKafka) }
func faultsContainer(spec *corev1.PodSpec) *corev1.Container { return container(spec, containerFaults) }

// applyBroker puts --set overrides into the kafka container's environment
// as the image reads them (KAFKA_<KEY>), replacing the manifest's values.
func (m *manifest) applyBroker(broker map[string]string) {
	c := kafkaContainer(&m.StatefulSet.Spec.Template.Spec)
	for _, k := range slices.Sorted(maps.Keys(broker)) {
		key, v := envKey(k), broker[k]
		i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == key })
		if i >= 0 {
			c.Env[i] = corev1.EnvVar{Name: key, Value: v}
		} else {
			c.Env = append(c.Env, corev1.EnvVar{Name: key, Value: v})
		}
	}
}

// envKey is the image's environment name of a broker setting (run.sh):
// KAFKA_ then upper case, '.' as '_', '_' as '__', '-' as '___'.
func envKey(setting string) string {
	r := strings.NewReplacer("_", "__", "-", "___", ".", "_")
	return "KAFKA_" + strings.ToUpper(r.Replace(setting))
}

// newParams are the template's values for a cluster of n nodes.
func (b *Backend) newParams(namespace string, n int, image, pull string) params {
	p := params{
		Name: b.name, Namespace: namespace, Pool: Pool, Service: b.service(), Domain: b.opts.Domain,
		Nodes: n, Image: image, PullPolicy: pull, ClusterID: cluster.RandomUUID(),
		RF: min(3, n), MinISR: min(2, n),
	}
	var voters []string
	for id := 1; id <= n; id++ {
		voters = append(voters, fmt.Sprintf("%d@%s:9093", id, b.podHost(namespace, id)))
	}
	p.Voters = strings.Join(voters, ",")
	return p
}

// podHost is the DNS name of node id's pod.
func (b *Backend) podHost(namespace string, id int) string {
	return fmt.Sprintf("%s-%d.%s.%s.svc.%s", b.statefulSet(), id, b.service(), namespace, b.opts.Domain)
}
