package kafkabook

import _ "embed"

// Kubernetes is kubernetes.yaml: the shape of a Kubernetes cluster (a
// StatefulSet of combined KRaft nodes labelled as Strimzi labels its pods,
// their headless Service, the ConfigMap of the supervisor and fault
// scripts, a pod for clients), a Go template read by
// internal/cluster/kubernetes.
//
//go:embed kubernetes.yaml
var Kubernetes []byte
