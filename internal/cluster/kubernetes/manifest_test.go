package kubernetes

import (
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestRender fills in the built-in kubernetes.yaml for a cluster of five
// and checks what Up and down rely on: names, labels, ordinals, the voters
// and the --set overrides in the kafka container's environment.
func TestRender(t *testing.T) {
	b, err := New("demo", Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := render(nil, b.newParams("ns1", 5, "kafkabook/kafka:4.3.1", "Never"))
	if err != nil {
		t.Fatal(err)
	}
	m.applyBroker(map[string]string{"replica.lag.time.max.ms": "5000", "min.insync.replicas": "2"})
	s := m.StatefulSet
	if s.Name != "demo-combined" || *s.Spec.Replicas != 5 || s.Spec.Ordinals == nil || s.Spec.Ordinals.Start != 1 || s.Spec.ServiceName != "demo-kafka-brokers" {
		t.Errorf("statefulset %s: replicas %d, ordinals %v, service %s", s.Name, *s.Spec.Replicas, s.Spec.Ordinals, s.Spec.ServiceName)
	}
	if !m.Service.Spec.PublishNotReadyAddresses || m.Service.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("service: publishNotReadyAddresses %v, clusterIP %q; want a headless service publishing unready pods", m.Service.Spec.PublishNotReadyAddresses, m.Service.Spec.ClusterIP)
	}
	labels := s.Spec.Template.Labels
	for k, v := range map[string]string{"strimzi.io/cluster": "demo", "strimzi.io/pool-name": "combined", "strimzi.io/broker-role": "true", "strimzi.io/controller-role": "true", labelManagedBy: managedBy, labelCluster: "demo"} {
		if labels[k] != v {
			t.Errorf("pod label %s=%q, want %q", k, labels[k], v)
		}
	}
	env := map[string]string{}
	for _, e := range kafkaContainer(&s.Spec.Template.Spec).Env {
		env[e.Name] = e.Value
	}
	if v := env["KAFKA_CONTROLLER_QUORUM_VOTERS"]; !strings.HasPrefix(v, "1@demo-combined-1.demo-kafka-brokers.ns1.svc.cluster.local:9093,") || !strings.HasSuffix(v, ",5@demo-combined-5.demo-kafka-brokers.ns1.svc.cluster.local:9093") {
		t.Errorf("voters %q", v)
	}
	if env["KAFKA_REPLICA_LAG_TIME_MAX_MS"] != "5000" || env["KAFKA_MIN_INSYNC_REPLICAS"] != "2" {
		t.Errorf("overrides not applied: %v", env)
	}
	if m.Clients.Name != "demo-clients" || m.Clients.Labels["strimzi.io/cluster"] != "" || m.Clients.Labels[labelCluster] != "demo" {
		t.Errorf("clients pod %s, labels %v", m.Clients.Name, m.Clients.Labels)
	}
	if !*s.Spec.Template.Spec.ShareProcessNamespace {
		t.Error("broker pods must share their process namespace with the faults container")
	}
	if got := b.podHost("ns1", 2); got != "demo-combined-2.demo-kafka-brokers.ns1.svc.cluster.local" {
		t.Errorf("podHost = %s", got)
	}
}

// TestParseState reads the fault script's state lines.
func TestParseState(t *testing.T) {
	for line, want := range map[string]string{
		"running pid=42":          "running 42",
		"running pid=42 isolated": "isolated 42",
		"paused pid=7":            "paused 7",
		"killed pid=0":            "killed 0",
		"stopped pid=0":           "stopped 0",
		"exited 1 pid=0":          "exited 0",
		"starting pid=0":          "running 0",
		"":                        "exited 0",
	} {
		st, pid := parseState(line)
		if got := string(st) + " " + itoa(pid); got != want {
			t.Errorf("parseState(%q) = %s, want %s", line, got, want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
