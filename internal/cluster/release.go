package cluster

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The operations beyond faults that a backend may or may not offer: a node
// started on another Kafka release (a rolling upgrade), and Kafka's own
// command-line tools run on a node (kafka-features.sh upgrade).

// Releaser is implemented by backends that can run a node on another
// Kafka release than the one it ran, from the same log directories.
type Releaser interface {
	// Release makes node run Kafka version from its next start,
	// resolving the release first (progress hears a download). The
	// running process is not touched: restart --to calls it, then stops
	// and starts the node.
	Release(ctx context.Context, node, version string, progress Progress) error
}

// Configurer is implemented by backends that can change a node's broker
// settings from its next start, as an operator edits server.properties
// before a rolling restart.
type Configurer interface {
	// Configure sets the settings (on top of the cluster's) node starts
	// with from its next start; the running process is not touched.
	Configure(ctx context.Context, node string, set map[string]string) error
}

// Members is implemented by backends that can grow a running cluster by
// a broker and take an added one out again.
type Members interface {
	// AddBroker starts a broker-only node with the next id, on release
	// version ("" the cluster's), and returns it; the caller waits for
	// it to register.
	AddBroker(ctx context.Context, version string, progress Progress) (Node, error)
	// RemoveBroker shuts node down cleanly and takes it out of the
	// cluster's nodes; the caller unregisters it.
	RemoveBroker(ctx context.Context, node string, progress Progress) error
}

// Controllers is implemented by backends that can format a cluster's
// controller quorum as a dynamic one (KIP-853, Config.Quorum) and grow it
// by a node that can become one of its voters.
type Controllers interface {
	// AddController starts a new node with the next id, a broker and
	// controller like the nodes the cluster was made with, formatted to
	// join the quorum as an observer (--no-initial-controllers), on
	// release version ("" the cluster's). The caller waits for it and
	// makes it a voter with Kafka's own tool.
	AddController(ctx context.Context, version string, progress Progress) (Node, error)
}

// The quorums a cluster is formatted with (Config.Quorum).
const (
	QuorumStatic  = "static"
	QuorumDynamic = "dynamic"
)

// Tools is implemented by backends that can run one of Kafka's
// command-line tools on a node, as an operator does on the broker's host:
// with the node's release, in the node's network.
type Tools interface {
	// Tool runs the main class with args on node and returns what it
	// printed; ToolBootstrap in args stands for the node's own broker
	// listener, ToolConfig for the node's own server.properties.
	Tool(ctx context.Context, node, class string, args []string) (string, error)
}

// Resetter is implemented by backends that can make a cluster new again
// on its own release without taking its network down: the run after one
// that moved nodes to another release starts from there.
type Resetter interface {
	Reset(ctx context.Context, progress Progress) error
}

// ToolTimeout bounds one of Kafka's tools run on a node, on every
// backend.
const ToolTimeout = 2 * time.Minute

// ImageToolArgv is the command that runs one of Kafka's tools (its main
// class) in a kafkabook/kafka container (`kafkabook image build`), with
// ToolBootstrap and ToolConfig in args replaced by bootstrap and the
// server.properties the image's entrypoint writes.
func ImageToolArgv(class string, args []string, bootstrap string) []string {
	argv := []string{"java", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", "/opt/kafka/libs/*", class}
	for _, a := range args {
		a = strings.ReplaceAll(a, ToolBootstrap, bootstrap)
		argv = append(argv, strings.ReplaceAll(a, ToolConfig, "/opt/kafka/config/server.properties"))
	}
	return argv
}

// ToolBootstrap, in a Tool's args, is the node's own broker listener;
// ToolConfig is the node's own server.properties (what
// kafka-metadata-quorum.sh add-controller reads its identity from).
const (
	ToolBootstrap = "{bootstrap}"
	ToolConfig    = "{config}"
)

// Needs that a step may have of its backend, named as check names the
// step: the directive, with " --to" when it changes a node's release.
const (
	NeedRestartTo       = "restart --to"
	NeedRollTo          = "roll --to"
	NeedFeaturesUpgrade = "features upgrade"
	NeedBrokerAdd       = "broker add"
	NeedBrokerRemove    = "broker remove"
	NeedRestartSet      = "restart --set"
	NeedRollSet         = "roll --set"
	NeedVoterAdd        = "voter add"
	NeedVoterRemove     = "voter remove"
)

// Lacks says why b cannot do what a step needs (one of the Need names),
// "" when it can or the step needs nothing beyond the backend's faults.
func Lacks(b Backend, need string) string {
	switch need {
	case NeedRestartTo, NeedRollTo:
		if _, ok := b.(Releaser); !ok {
			return fmt.Sprintf("%s needs a backend that can start a node on another Kafka release, on its data: the local, docker and kubernetes backends can, and an external cluster whose file has a release command; this one cannot yet", need)
		}
	case NeedRestartSet, NeedRollSet:
		if _, ok := b.(Configurer); !ok {
			return fmt.Sprintf("%s needs a backend that can change a node's broker settings: the local, docker and kubernetes backends can; this one cannot yet", need)
		}
	case NeedBrokerAdd, NeedBrokerRemove:
		if _, ok := b.(Members); !ok {
			return fmt.Sprintf("%s needs a backend that can grow a running cluster: the local, docker and kubernetes backends can; this one cannot yet", need)
		}
	case NeedVoterAdd, NeedVoterRemove:
		_, ok := b.(Controllers)
		if _, tools := b.(Tools); !ok || !tools {
			return fmt.Sprintf("%s needs a backend that formats a dynamic controller quorum (KIP-853) and runs Kafka's own tool on a node: the local, docker and kubernetes backends can; this one cannot yet", need)
		}
	case NeedFeaturesUpgrade:
		if _, ok := b.(Tools); !ok {
			return fmt.Sprintf("%s runs Kafka's own tool on a node: the local, docker and kubernetes backends can; this one cannot yet", need)
		}
	}
	return ""
}
