package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkabook/kafkabook/runbook"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// node is one Kafka node as its pod shows it.
type node struct {
	Name string // k1
	ID   int    // node.id
	Pod  corev1.Pod
}

// nodes lists the cluster's Kafka nodes, in node id order, from the pods
// labelled strimzi.io/cluster=<name>: those kafkabook created and those a
// Strimzi operator did. A node's id is its pod name's last number
// (<cluster>-<pool>-<id>, as both name them).
func (b *Backend) nodes(ctx context.Context, a *api) ([]node, error) {
	pods, err := a.cs.CoreV1().Pods(a.namespace).List(ctx, metav1.ListOptions{LabelSelector: labelStrimziCluster + "=" + b.name})
	if err != nil {
		return nil, fmt.Errorf("listing the pods of cluster %s in namespace %s: %w", b.name, a.namespace, err)
	}
	var out []node
	for _, p := range pods.Items {
		i := strings.LastIndexByte(p.Name, '-')
		id, err := strconv.Atoi(p.Name[i+1:])
		if err != nil || id < 0 {
			return nil, fmt.Errorf("pod %s of cluster %s: its name does not end in a node id (<cluster>-<pool>-<id>)", p.Name, b.name)
		}
		out = append(out, node{Name: runbook.NodeName(id), ID: id, Pod: p})
	}
	slices.SortFunc(out, func(x, y node) int { return x.ID - y.ID })
	for i := 1; i < len(out); i++ {
		if out[i].ID == out[i-1].ID {
			return nil, fmt.Errorf("pods %s and %s of cluster %s have the same node id %d", out[i-1].Pod.Name, out[i].Pod.Name, b.name, out[i].ID)
		}
	}
	return out, nil
}

// clusterNodes is the API and the cluster's nodes (nodes), which most
// calls need both of.
func (b *Backend) clusterNodes(ctx context.Context) (*api, []node, error) {
	a, err := b.client(ctx)
	if err != nil {
		return nil, nil, err
	}
	all, err := b.nodes(ctx, a)
	return a, all, err
}

// address is the broker address a pod advertises: its DNS name under its
// StatefulSet's headless Service, port 9092.
func (b *Backend) address(p corev1.Pod) string {
	host := p.Spec.Hostname
	if host == "" {
		host = p.Name
	}
	return fmt.Sprintf("%s.%s.%s.svc.%s:9092", host, p.Spec.Subdomain, p.Namespace, b.opts.Domain)
}

// byName finds the named nodes, in the order given.
func (b *Backend) byName(ns []node, names []string) ([]node, error) {
	var out []node
	for _, name := range names {
		i := slices.IndexFunc(ns, func(n node) bool { return n.Name == name })
		if i < 0 {
			if len(ns) == 0 {
				return nil, fmt.Errorf("no Kubernetes cluster %q is up (start one with `kafkabook cluster up --backend kubernetes`)", b.name)
			}
			var have []string
			for _, n := range ns {
				have = append(have, n.Name)
			}
			return nil, fmt.Errorf("no node %q in cluster %q (it has %s)", name, b.name, strings.Join(have, ", "))
		}
		out = append(out, ns[i])
	}
	return out, nil
}

// running reports whether the pod's container runs now.
func running(p corev1.Pod, container string) bool {
	if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == container {
			return cs.State.Running != nil
		}
	}
	return false
}
