package backends

import (
	"context"
	"fmt"
	"maps"
	"os"
	"sync"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/external"
	"github.com/kafkabook/kafkabook/internal/cluster/kubernetes"
)

// RunRequest is what a run asks of a cluster for one Kafka version: the
// user's flags and the runbook's needs, as plain values, so that this
// package decides without reading flags or runbooks.
type RunRequest struct {
	Kind    string  // --backend (or the front matter's backend:), "" for automatic
	Options Options // the backend flags
	// Attach names a Strimzi cluster in Kubernetes to run against instead
	// of starting one; AllowFaults must name it again before a runbook may
	// hurt it.
	Attach, AllowFaults string
	// Keep leaves a cluster the run starts up as the default cluster.
	Keep bool
	// Default is the default cluster's name: the one a run reuses, and
	// the name of the cluster it keeps.
	Default string
	Kafka   string            // the Kafka version
	Nodes   int               // the runbook's node count
	Broker  map[string]string // the runbook's broker settings
	// PowerLoss says the runbook cuts power, which only a cluster of the
	// run's own on a backend with cluster.PowerLoss can take.
	PowerLoss bool
	// Clock says the runbook steps a broker's wall clock, which only a
	// cluster of the run's own on a backend with cluster.Clocks can take.
	Clock bool
	// Quorum is the controller quorum the runbook asks for
	// (cluster.QuorumStatic or QuorumDynamic), "" for either: a dynamic
	// one needs a cluster formatted so, by a backend with
	// cluster.Controllers.
	Quorum string
	// Hurts names the runbook's directives that hurt their cluster, in
	// the registry's order: an attached cluster takes them only with
	// AllowFaults.
	Hurts   []string
	Ready   cluster.Ready // what Up waits for (cluster.Config's Ready)
	Runbook string        // the runbook's path, for messages
	// Warn hears what goes wrong taking the run's own cluster down: it
	// happens after the run, so it fails nothing. Without it, progress
	// does.
	Warn func(error)
}

// A Lease is the cluster a run uses and how to let go of it.
type Lease struct {
	cluster.Backend
	// Reused says the cluster was up before the run (the default
	// cluster, an attached or external one), for provenance.
	Reused  bool
	once    sync.Once
	release func()
}

// Release lets go of the cluster: it removes a cluster the run started
// for itself and the client pod next to an attached one, and leaves any
// other cluster up. Only the first call acts, so it is safe to defer and to
// call as soon as the run is through with the cluster.
func (l *Lease) Release() {
	l.once.Do(func() {
		if l.release != nil {
			l.release()
		}
	})
}

// ForRun finds or starts the cluster a run needs and says how to let go of
// it: the attached cluster with Attach, the cluster file's with the
// external backend, the default cluster when it is up as the runbook asks
// (and the runbook does not cut power or step clocks, which need a cluster
// of its own),
// else a new cluster of the run's own. Errors that are the user's are
// UsageErrors; a default cluster up with other settings under Keep is not
// one (the flags are right, the machine is not).
func ForRun(ctx context.Context, req RunRequest, progress cluster.Progress) (*Lease, error) {
	kind, err := req.validate()
	if err != nil {
		return nil, err
	}
	switch {
	case req.Attach != "":
		return req.attached(ctx, progress)
	case kind == external.Name:
		return req.external(ctx, progress)
	}
	def, err := openExisting(ctx, kind, req.Default, req.Options)
	if err != nil {
		return nil, err
	}
	if st, err := def.Status(ctx); err == nil {
		if matches(st, req.Kafka, req.Nodes, req.Broker) && !req.PowerLoss && !req.Clock && req.quorumOf(st) {
			progress("using the default cluster (Kafka %s, %d nodes); it stays up", req.Kafka, len(st.Nodes))
			return &Lease{Backend: def, Reused: true}, nil
		}
		if req.Keep {
			return nil, fmt.Errorf("the default cluster is up with other settings (Kafka %s, %d nodes, %v); --keep-cluster would replace it: take it down with `kafkabook cluster down` first", st.Kafka, len(st.Nodes), st.Broker)
		}
	}
	return req.start(ctx, kind, progress)
}

// validate refuses, before anything is opened, every request whose flags
// do not fit together, and returns the backend they name ("" for
// automatic). An attached cluster is Kubernetes' and is not Choose's to
// check.
func (req *RunRequest) validate() (string, error) {
	if req.Attach == "" {
		if req.AllowFaults != "" {
			return "", usagef("--allow-faults is for --attach")
		}
		return Choose(req.Kind, req.Options)
	}
	switch {
	case req.Kind != "" && req.Kind != kubernetes.Name:
		return "", usagef("--attach is for --backend kubernetes")
	case req.Keep:
		return "", usagef("--keep-cluster and --attach: an attached cluster is not kafkabook's to keep or remove")
	case req.AllowFaults != "" && req.AllowFaults != req.Attach:
		return "", usagef("--allow-faults %s does not name the attached cluster %s", req.AllowFaults, req.Attach)
	case req.AllowFaults == "" && len(req.Hurts) > 0:
		return "", usagef("%s hurts its cluster (%s) and --attach %s names a cluster kafkabook did not start: add --allow-faults %s to let it", req.Runbook, req.Hurts[0], req.Attach, req.Attach)
	}
	return kubernetes.Name, nil
}

// start starts a cluster of the run's own: named run<pid>, removed on
// Release; or, with Keep, the default cluster, left up.
func (req *RunRequest) start(ctx context.Context, kind string, progress cluster.Progress) (*Lease, error) {
	name := req.Default
	if !req.Keep {
		name = fmt.Sprintf("run%d", os.Getpid())
	}
	b, err := openNew(kind, name, req.Options, progress)
	if err != nil {
		return nil, err
	}
	if _, ok := b.(cluster.PowerLoss); req.PowerLoss && !ok {
		return nil, usagef("%s uses powerloss, which needs the local backend: the %s backend cannot drop a node's unsynced writes", req.Runbook, NameOf(b))
	}
	if _, ok := b.(cluster.Clocks); req.Clock && !ok {
		return nil, usagef("%s uses clock, which needs the local, docker or kubernetes backend: the %s backend does not start its brokers with libfaketime preloaded", req.Runbook, NameOf(b))
	}
	if _, ok := b.(cluster.Controllers); req.Quorum == cluster.QuorumDynamic && !ok {
		return nil, usagef("%s asks for a dynamic controller quorum, which the local, docker and kubernetes backends format: the %s backend cannot", req.Runbook, NameOf(b))
	}
	cfg := cluster.Config{Name: req.Default, Kafka: req.Kafka, Nodes: req.Nodes, Broker: req.Broker, Keep: req.Keep, PowerLoss: req.PowerLoss, Clock: req.Clock, Quorum: req.Quorum, Ready: req.Ready}
	// Up removes what it created when it fails or is interrupted.
	if _, err := b.Up(ctx, cfg, progress); err != nil {
		return nil, err
	}
	if req.Keep {
		return &Lease{Backend: b}, nil
	}
	warn := req.Warn
	if warn == nil {
		warn = func(err error) { progress("%v", err) }
	}
	return &Lease{Backend: b, release: func() {
		progress("taking the cluster down")
		// Down finishes after Ctrl-C: the cluster is the run's to remove.
		if err := b.Down(context.WithoutCancel(ctx), progress); err != nil {
			warn(fmt.Errorf("taking the cluster down: %w", err))
		}
	}}, nil
}

// external checks that the cluster of the cluster file answers with the
// runbook's node count; it is never taken down (it is not kafkabook's).
func (req *RunRequest) external(ctx context.Context, progress cluster.Progress) (*Lease, error) {
	if req.Quorum == cluster.QuorumDynamic {
		return nil, usagef("%s asks for a dynamic controller quorum: an external cluster's quorum is formatted already, and kafkabook cannot change it", req.Runbook)
	}
	b, err := Open(external.Name, "", req.Options)
	if err != nil {
		return nil, err
	}
	cfg := cluster.Config{Name: req.Default, Kafka: req.Kafka, Nodes: req.Nodes, Broker: req.Broker, Keep: true, Ready: req.Ready}
	if _, err := b.Up(ctx, cfg, progress); err != nil {
		return nil, err
	}
	if !b.(*external.Backend).HasLogs() {
		progress("the cluster file has no logs command: the evidence will have no broker log lines")
	}
	return &Lease{Backend: b, Reused: true}, nil
}

// attached is the Strimzi cluster Attach names, checked to have the
// runbook's nodes; Release removes only kafkabook's client pod next to it.
func (req *RunRequest) attached(ctx context.Context, progress cluster.Progress) (*Lease, error) {
	o := req.Options
	b, err := kubernetes.Attach(req.Attach, kubernetes.AttachOptions{Kubeconfig: o.Kubeconfig, Namespace: o.Namespace, AllowFaults: req.AllowFaults, Image: o.Image})
	if err != nil {
		return nil, usage(err)
	}
	st, err := b.Status(ctx)
	if err != nil {
		return nil, err
	}
	if len(st.Nodes) < req.Nodes {
		return nil, usagef("%s needs %d nodes and the attached cluster %s has %d brokers", req.Runbook, req.Nodes, req.Attach, len(st.Nodes))
	}
	progress("attached to cluster %s (%d brokers, Kafka %s); it stays up", req.Attach, len(st.Nodes), st.Kafka)
	return &Lease{Backend: b, Reused: true, release: func() {
		if err := b.Down(context.WithoutCancel(ctx), progress); err != nil {
			progress("removing kafkabook's client pod: %v", err)
		}
	}}, nil
}

// matches reports whether a running cluster is the one a runbook asks
// for: its Kafka version, node count and broker settings, every node up.
// quorumOf says whether a cluster up with status st has the quorum the
// run asks for; a backend that does not say has a static one.
func (req *RunRequest) quorumOf(st cluster.Status) bool {
	have := st.Quorum
	if have == "" {
		have = cluster.QuorumStatic
	}
	return req.Quorum == "" || req.Quorum == have
}

func matches(st cluster.Status, kafka string, nodes int, broker map[string]string) bool {
	if st.Kafka != kafka || len(st.Nodes) != nodes {
		return false
	}
	for _, n := range st.Nodes {
		if !n.State.Up() {
			return false
		}
	}
	return maps.Equal(st.Broker, broker) || len(st.Broker) == 0 && len(broker) == 0
}
