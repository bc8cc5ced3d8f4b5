// Package docker runs a Kafka KRaft cluster as Docker containers, one per
// combined broker+controller node, shaped by compose.yaml and driven
// through the Docker Engine API: kill is SIGKILL to the container, stop a
// graceful stop, pause the cgroup freezer, isolate a disconnect from the
// cluster's network (the acks article's operation) and rejoin a reconnect
// with the same address and alias.
//
// Everything a cluster creates carries the label kafkabook.cluster=<name>
// (and kafkabook.root=<state root>, so that clusters of another state root
// are not this one's); down removes exactly the containers, networks and
// volumes with those labels, and nothing else. The daemon is the state:
// there is no state file.
package docker

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/netfault"
)

// Name is this backend's name in provenance and status.
const Name = "docker"

// Labels on everything a cluster creates.
const (
	labelCluster = "kafkabook.cluster"
	labelRoot    = "kafkabook.root"
	// On containers only:
	labelNode    = "kafkabook.node"
	labelNodeID  = "kafkabook.node-id"
	labelKafka   = "kafkabook.kafka"
	labelBroker  = "kafkabook.broker"  // JSON of the --set overrides
	labelAddress = "kafkabook.address" // host:port of the host listener
	labelNetwork = "kafkabook.network" // the cluster network's name
	labelIP      = "kafkabook.ip"      // the node's address on it
	labelAliases = "kafkabook.aliases" // its aliases there, comma-separated
	labelOwner   = "kafkabook.owner"   // "pid start-time" of the process that started it
	labelKept    = "kafkabook.kept"    // "true" when it outlives its owner
	labelCreated = "kafkabook.created" // RFC 3339
	labelConfigs = "kafkabook.configs" // the paths configs were copied to, comma-separated
	// A node recreated on another release or with settings of its own
	// (restart --to, --set) carries them; the cluster's stay in
	// labelKafka and labelBroker.
	labelNodeKafka  = "kafkabook.node-kafka"
	labelNodeBroker = "kafkabook.node-broker" // JSON
)

// Options choose what a cluster runs.
type Options struct {
	// Image runs instead of the one Up picks (apache/kafka:VERSION, else
	// kafkabook/kafka:VERSION built here, else a pull of the first).
	Image string
	// ComposeFile is read instead of the compose.yaml built into kafkabook.
	ComposeFile string
}

// Backend is one named Docker cluster.
type Backend struct {
	// Faults are the network faults finer than isolation (netfaults.go):
	// Partition, Loss and Rules come from package netfault.
	netfault.Faults
	name string
	root string // state root: the clusters of one root are one set
	opts Options

	once   sync.Once
	cli    *client.Client
	cliErr error

	// next holds what a node's next start changes (release.go).
	mu   sync.Mutex
	next map[string]nextStart
	// earlier keeps the logs of containers replaced or removed.
	earlier cluster.EarlierLogs
}

var _ cluster.Backend = (*Backend)(nil)

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,23}$`)

// New returns the backend for the cluster called name under the state root
// that the local backend uses too ($KAFKABOOK_STATE, ...).
func New(name string, opts Options) (*Backend, error) {
	if !nameRE.MatchString(name) {
		return nil, fmt.Errorf("cluster name %q: use 1 to 24 lower-case letters, digits and dashes", name)
	}
	root, err := cluster.StateRoot()
	if err != nil {
		return nil, err
	}
	b := &Backend{name: name, root: root, opts: opts}
	b.Faults = netfault.Faults{Nodes: b.netNodes}
	return b, nil
}

// ErrNoDaemon is returned when no Docker daemon answers.
var ErrNoDaemon = errors.New("no Docker daemon")

// connect opens the Engine API client once and checks that a daemon
// answers.
func (b *Backend) client(ctx context.Context) (*client.Client, error) {
	b.once.Do(func() { b.cli, b.cliErr = connect(ctx) })
	return b.cli, b.cliErr
}

func connect(ctx context.Context) (*client.Client, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDaemon, err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := cli.Ping(pctx); err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w answers at %s (%v): start one (`sudo systemctl start docker`, or where there is no systemd `sudo dockerd >/var/log/dockerd.log 2>&1 &`), or use --backend local", ErrNoDaemon, cli.DaemonHost(), err)
	}
	cli.NegotiateAPIVersion(ctx)
	return cli, nil
}

// DaemonRunning reports whether a Docker daemon answers.
func DaemonRunning(ctx context.Context) bool {
	cli, err := connect(ctx)
	if err == nil {
		cli.Close()
	}
	return err == nil
}

func (b *Backend) projectName() string { return "kafkabook-" + b.name }

// filter selects what belongs to this cluster.
func (b *Backend) filter(extra ...filters.KeyValuePair) filters.Args {
	args := append([]filters.KeyValuePair{
		filters.Arg("label", labelCluster+"="+b.name),
		filters.Arg("label", labelRoot+"="+b.root),
	}, extra...)
	return filters.NewArgs(args...)
}

func (b *Backend) labels() map[string]string {
	return map[string]string{labelCluster: b.name, labelRoot: b.root}
}
