// Package cluster is what kafkabook needs from a Kafka cluster it may hurt:
// start it, inject faults into its nodes, read their logs, and take it down
// without residue. Backends (local JVMs in network namespaces, Docker,
// Kubernetes) live in subpackages and implement Backend.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	"github.com/kafkabook/kafkabook/internal/poll"
)

// State is what a node is doing, as the backend last saw it.
type State string

const (
	Running  State = "running"
	Paused   State = "paused"   // frozen (SIGSTOP); its connections stay open
	Isolated State = "isolated" // running, but cut off from every other node and the host
	Stopped  State = "stopped"  // shut down gracefully
	Killed   State = "killed"   // SIGKILL
	Exited   State = "exited"   // died without being told to
	// Unknown is a node whose backend cannot see its process (external)
	// and has applied no command to it yet.
	Unknown State = "unknown"
)

// Up reports whether a node in state s has a live broker process (it may
// still be unreachable).
func (s State) Up() bool { return s == Running || s == Paused || s == Isolated }

// Node is one combined broker+controller.
type Node struct {
	Name    string `json:"name"`    // k1..kN
	ID      int    `json:"id"`      // node.id, 1..N
	Address string `json:"address"` // host:port of the broker listener, reachable from the host
	State   State  `json:"state"`
	PID     int    `json:"pid"` // 0 when no process runs
	// Kafka is the release the node runs (or last ran), when it is not
	// the cluster's: a node restarted with --to.
	Kafka string `json:"kafka,omitempty"`
	// Broker are the node's own broker settings on top of the cluster's
	// (restart --set).
	Broker map[string]string `json:"broker,omitempty"`
	// Added is a broker-only node added after the cluster was made
	// (broker add).
	Added bool `json:"added,omitempty"`
}

// Status is the cluster as `kafkabook cluster status --json` prints it.
type Status struct {
	Name    string            `json:"name"`
	Backend string            `json:"backend"`
	Kafka   string            `json:"kafka"`
	Broker  map[string]string `json:"broker,omitempty"` // server.properties overrides it was started with
	Nodes   []Node            `json:"nodes"`
	// ClusterFile is a cluster file for the external backend that reaches
	// this cluster, when the backend wrote one (local, with Security).
	ClusterFile string `json:"cluster_file,omitempty"`
	// Removed are the nodes taken out of the cluster (broker remove),
	// which Nodes no longer lists.
	Removed []string `json:"removed,omitempty"`
	// Quorum is how the controller quorum was formatted: QuorumStatic or
	// QuorumDynamic; "" when the backend cannot say (an external or
	// attached cluster).
	Quorum string `json:"quorum,omitempty"`
}

// Bootstrap is the seed broker list for clients.
func (s Status) Bootstrap() []string {
	addrs := make([]string, len(s.Nodes))
	for i, n := range s.Nodes {
		addrs[i] = n.Address
	}
	return addrs
}

// Node returns the node with the given name.
func (s Status) Node(name string) (Node, bool) {
	for _, n := range s.Nodes {
		if n.Name == name {
			return n, true
		}
	}
	return Node{}, false
}

// Config is what `cluster up` is asked for.
type Config struct {
	Name   string            // cluster name; "default" unless given
	Kafka  string            // Kafka version, e.g. "4.3.1"
	Nodes  int               // number of combined nodes
	Broker map[string]string // server.properties overrides for every node
	// Keep makes the cluster outlive the process that starts it (`cluster
	// up`, `run --keep-cluster`). Without it the cluster is private to that
	// process: its nodes die with it, and a cluster whose owner is gone is
	// removed by the next kafkabook command.
	Keep bool
	// PowerLoss puts every node's data directory on a layer that keeps
	// what the broker writes in memory until it fsyncs it, so that nodes
	// can lose power. Only backends that implement PowerLoss honour it:
	// ask one before setting it.
	PowerLoss bool
	// Clock starts every broker with its wall clock under kafkabook's
	// hand, so that it can jump (Clocks). Only backends that implement
	// Clocks honour it: ask one before setting it.
	Clock bool
	// Security is how clients authenticate: "" plaintext, or
	// SecuritySASLSSL. Only backends that implement it honour it (local).
	Security string
	// Quorum is how the controller quorum is formatted: "" (or
	// QuorumStatic) a static quorum, the nodes named in every node's
	// controller.quorum.voters; QuorumDynamic a KIP-853 quorum, whose
	// voters can be added and removed. Only backends that implement
	// Controllers honour QuorumDynamic: ask one before setting it.
	Quorum string
	// Ready opens the registry of the cluster's brokers: Up returns once
	// every node's broker is registered and unfenced there. Required; it
	// is how a backend asks Kafka without this package importing a Kafka
	// client (kafkabook passes internal/kafka's).
	Ready Ready
}

// SecuritySASLSSL gives every node a client listener with TLS and
// SASL/SCRAM-SHA-512, and kafkabook's clients an admin user there.
const SecuritySASLSSL = "sasl-ssl"

// Progress receives one-line progress messages while a backend waits; it
// is the tool's one progress type (see poll.Printer).
type Progress = poll.Progress

// Backend is one way of running a cluster. Every method acts on the cluster
// named in the backend's construction.
type Backend interface {
	// Up starts the cluster and returns once every broker is registered and
	// unfenced. On error or cancellation it removes what it created.
	Up(ctx context.Context, cfg Config, progress Progress) (Status, error)
	// Status describes the cluster; ErrNotFound when it is not up.
	Status(ctx context.Context) (Status, error)
	// Apply performs op on the named nodes, in order.
	Apply(ctx context.Context, op Op, nodes []string, progress Progress) error
	// Logs opens a node's broker log.
	Logs(ctx context.Context, node string) (io.ReadCloser, error)
	// Down removes everything the cluster created; it succeeds when there is
	// nothing to remove.
	Down(ctx context.Context, progress Progress) error
}

// ErrNoLogs is returned by Logs when the backend has no way to read a
// node's broker log (an external cluster whose file names no logs
// command): the evidence then has no broker log lines, which is not a
// failure of the run.
var ErrNoLogs = errors.New("no broker log: the backend cannot read it (an external cluster file without a logs command)")

// ErrNotFound is returned by Status when the cluster is not up.
var ErrNotFound = fmt.Errorf("cluster not found")

// Placeholders is implemented by backends that keep a cluster's files on
// this machine. It maps each of those directories to a stable placeholder
// ("$KAFKABOOK_STATE"), so that evidence meant to be published names
// $KAFKABOOK_STATE/k1/data rather than a home directory.
type Placeholders interface {
	Placeholders() map[string]string
}

// NetFaults is implemented by backends that can cut the network finer than
// isolate does: between groups of nodes while clients still reach every
// node, in one direction only, only between broker listeners, by
// dropping a share of the packets, or by narrowing a node's link.
type NetFaults interface {
	// Partition stops traffic from every node of from to every node of to,
	// and back unless cut.OneWay.
	Partition(ctx context.Context, from, to []string, cut Cut) error
	// Loss drops percent of the packets on the node's links, both ways; 0
	// removes the loss.
	Loss(ctx context.Context, node string, percent int) error
	// Rate limits what the node sends, to other nodes and to clients, to
	// bitsPerSec; 0 removes the limit.
	Rate(ctx context.Context, node string, bitsPerSec int64) error
	// HealNetwork removes every partition, loss and rate limit.
	HealNetwork(ctx context.Context) error
}

// Delayer is implemented by backends that can delay what a node sends:
// a process of kafkabook's own holds each packet for the delay
// (internal/netdelay), so the backend must run it in the node's network
// namespace and account for it like the node's JVM.
type Delayer interface {
	// Delay holds what node sends (to the nodes of d.To only, when it
	// names some) for d.Delay plus a uniform 0..d.Jitter, and replaces
	// any delay of node set before; a zero d.Delay removes it.
	// HealNetwork removes every delay.
	Delay(ctx context.Context, node string, d LinkDelay) error
	// Handshakes times n TCP handshakes with node's broker listener,
	// from where the clients run (from "": this machine, or the clients'
	// pod) or from node from's network, sorted: the round trip a delay
	// adds to, measured over the link itself.
	Handshakes(ctx context.Context, from, node string, n int) ([]time.Duration, error)
}

// LinkDelay is a delay on what one node sends.
type LinkDelay struct {
	Delay, Jitter time.Duration
	To            []string // only what the node sends to these nodes; none: everything it sends
}

// Check refuses a delay no backend can put on node's link.
func (d LinkDelay) Check(node string) error {
	if d.Delay < 0 || d.Jitter < 0 {
		return fmt.Errorf("link %s --delay %v --jitter %v: want durations of 0 or more", node, d.Delay, d.Jitter)
	}
	if slices.Contains(d.To, node) {
		return fmt.Errorf("link %s --to %s: a node's traffic to itself is not delayed", node, node)
	}
	return nil
}

// Cut says which traffic a partition stops.
type Cut struct {
	// OneWay stops only the traffic from the first group to the second.
	OneWay bool
	// KeepQuorum stops only traffic to and from the broker listeners
	// (replication fetches and the other broker-to-broker requests) and
	// lets the controller listeners talk: the KRaft quorum stays whole, so
	// a leader whose followers are cut off can still shrink its ISR
	// through the controller, which a full partition prevents.
	KeepQuorum bool
}

// TimeHandshakes times n TCP handshakes with addr from the network
// namespace the calling thread is in, sorted: what a Delayer's
// Handshakes measures.
func TimeHandshakes(ctx context.Context, addr string, n int) ([]time.Duration, error) {
	var out []time.Duration
	var d net.Dialer
	for range n {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		start := time.Now()
		c, err := d.DialContext(ctx, "tcp", addr)
		took := time.Since(start)
		cancel()
		if err != nil {
			return nil, err
		}
		c.Close()
		out = append(out, took)
	}
	slices.Sort(out)
	return out, nil
}
