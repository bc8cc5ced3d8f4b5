// Package kubernetes runs kafkabook's clusters on Kubernetes, through the
// API as client-go speaks it (the user's kubeconfig and namespace).
//
// A cluster is what kubernetes.yaml (at the repository's root) describes,
// filled in per cluster: a StatefulSet <cluster>-<pool> of combined
// broker+controller pods <cluster>-<pool>-1..N (node.id N, node kN)
// labelled as Strimzi labels its Kafka pods, a headless Service that gives
// each pod the DNS name its broker advertises, a ConfigMap of scripts and a
// pod <cluster>-clients for clients. The node list is read from the pods
// found by strimzi.io/cluster=<cluster> (pods), so that the same Status and
// faults work on pods kafkabook did not create.
//
// Faults never delete or restart a pod: each broker pod shares its process
// namespace with a sidecar, faults (root, NET_ADMIN), in which kafkabook
// execs the ConfigMap's fault script. The broker runs under a supervisor
// that does not start it again while a marker file says it is down, so
// the faults match the other backends':
//
//	kill     marker, then SIGKILL to the JVM's process group from the sidecar;
//	         until start, iptables in the pod answer every TCP segment it
//	         sends but a reset with a reset, so the dead broker's sockets
//	         deliver nothing more (the pod's kernel lives on and would send
//	         a fetch answer the broker had written once the network allows)
//	stop     marker, then SIGTERM to the JVM; waits up to 60 s for it to exit
//	         (then SIGKILL, and the node counts as killed)
//	start    marker removed; the supervisor starts the broker again in the
//	         same pod, on the same data (the node's claim) and address;
//	         for a node moved to another release (restart --to), the pod
//	         is made again on that release's image first (release.go)
//	pause    SIGSTOP to the JVM's process group; resume SIGCONT
//	isolate  iptables in the pod's network namespace drop every packet that
//	         is not loopback: no other pod (brokers, clients) and no DNS
//	         reaches it, nor it them; exec and logs still work (they do not
//	         use the pod network); rejoin removes the rules
//	partition, loss
//	         package netfault's rules between the pods' addresses, run by
//	         iptables in the sidecar; clients still reach every node
//
// powerloss is refused: the node's volume is whatever the cluster's
// storage provides, and nothing here can drop a broker's unsynced writes.
// A node's log is its kafka container's log (the pod log API), which
// outlives kill and start; a pod made again for another release starts a
// new one.
//
// Everything Up creates carries app.kubernetes.io/managed-by=kafkabook and
// kafkabook.io/cluster=<cluster>; down deletes exactly what has both, in
// the backend's namespace, and checks afterwards that none of it remains.
// The API server is the state: there is no state file.
package kubernetes

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/netfault"
)

// Name is this backend's name in provenance and status.
const Name = "kubernetes"

// Labels and annotations.
const (
	labelManagedBy = "app.kubernetes.io/managed-by"
	managedBy      = "kafkabook"
	labelCluster   = "kafkabook.io/cluster"
	// Strimzi's, on broker pods only.
	labelStrimziCluster = "strimzi.io/cluster"
	labelPool           = "strimzi.io/pool-name"
	// On broker pods (from the StatefulSet's template):
	annKafka   = "kafkabook.io/kafka"   // Kafka version
	annBroker  = "kafkabook.io/broker"  // JSON of the --set overrides
	annKept    = "kafkabook.io/kept"    // "true" when it outlives its owner
	annOwner   = "kafkabook.io/owner"   // host and pid of the process that started it
	annCreated = "kafkabook.io/created" // RFC 3339
)

// Pool is the node pool of a cluster's combined nodes.
const Pool = "combined"

// Options choose where and what a cluster runs.
type Options struct {
	// Kubeconfig names the kubeconfig file; empty reads it as kubectl does.
	Kubeconfig string
	// Namespace is where the cluster lives; empty is the kubeconfig's.
	Namespace string
	// Image runs instead of kafkabook/kafka:VERSION (`kafkabook image
	// build`, imported into the cluster's container runtime, never
	// pulled); a named image is pulled when the node lacks it.
	Image string
	// Domain is the cluster's DNS domain; empty is cluster.local.
	Domain string
}

// Backend is one named cluster in one namespace.
type Backend struct {
	// Faults are the network faults finer than isolation (netfaults.go):
	// Partition, Loss, Rate and HealNetwork come from package netfault.
	netfault.Faults
	name string
	opts Options

	once   sync.Once
	api    *api
	apiErr error

	states stateCache // what the pods last said of their brokers

	mu   sync.Mutex
	next map[string]string // node -> the release its next start moves it to
	// earlier keeps the logs of pods made again on another release.
	earlier cluster.EarlierLogs
}

var _ cluster.Backend = (*Backend)(nil)

// nameRE keeps every name derived from the cluster's (pods
// <name>-combined-N, the Service <name>-kafka-brokers) a DNS label.
var nameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,22}[a-z0-9])?$`)

// New returns the backend for the cluster called name.
func New(name string, opts Options) (*Backend, error) {
	if !nameRE.MatchString(name) {
		return nil, fmt.Errorf("cluster name %q: use 1 to 24 lower-case letters, digits and dashes, starting and ending with a letter or digit", name)
	}
	if opts.Domain == "" {
		opts.Domain = "cluster.local"
	}
	b := &Backend{name: name, opts: opts}
	b.Faults = b.net()
	return b, nil
}

// client connects to the API server once.
func (b *Backend) client(context.Context) (*api, error) {
	b.once.Do(func() { b.api, b.apiErr = connect(b.opts.Kubeconfig, b.opts.Namespace) })
	return b.api, b.apiErr
}

// Namespace is the namespace the backend works in ("" before it could
// connect).
func (b *Backend) Namespace(ctx context.Context) string {
	a, err := b.client(ctx)
	if err != nil {
		return ""
	}
	return a.namespace
}

// Available says why no cluster can be reached through the kubeconfig
// ("" when the API server answers).
func Available(ctx context.Context, kubeconfig string) string {
	a, err := connect(kubeconfig, "")
	if err != nil {
		return err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := a.cs.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Error(); err != nil {
		return fmt.Sprintf("the API server in the kubeconfig does not answer: %v", err)
	}
	return ""
}

// owned is the label selector of everything the cluster created.
func (b *Backend) owned() string {
	return labelManagedBy + "=" + managedBy + "," + labelCluster + "=" + b.name
}

// service is the headless Service's name, as Strimzi names its own.
func (b *Backend) service() string { return b.name + "-kafka-brokers" }

// statefulSet is the StatefulSet's name.
func (b *Backend) statefulSet() string { return b.name + "-" + Pool }

// clientPod is the name of the pod clients run in.
func (b *Backend) clientPod() string { return b.name + "-clients" }
