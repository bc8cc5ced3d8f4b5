// Package local runs a Kafka KRaft cluster on this machine: one JVM per
// combined broker+controller node, each in its own network namespace on a
// private bridge, so that a node can be cut off from the network the way
// `docker network disconnect` cuts off a container. It needs root.
package local

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/netfault"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/kafkabook/kafkabook/runbook"
	"golang.org/x/sync/errgroup"
)

// Name is this backend's name in provenance and status.
const Name = "local"

// Backend is one named local cluster.
type Backend struct {
	// Faults are the network faults finer than isolation (netfaults.go):
	// Partition, Loss, HealNetwork and Rules come from package netfault.
	netfault.Faults
	name string
	dir  string // state root/clusters/name
}

// newBackend is the handle on the cluster whose state is in dir.
func newBackend(name, dir string) *Backend {
	b := &Backend{name: name, dir: dir}
	b.Faults = netfault.Faults{Nodes: b.netNodes}
	return b
}

var _ cluster.Backend = (*Backend)(nil)

// New returns the backend for the cluster called name, under cluster.StateRoot.
func New(name string) (*Backend, error) {
	root, err := cluster.StateRoot()
	if err != nil {
		return nil, err
	}
	return NewAt(root, name)
}

// NewAt returns the backend for the cluster called name whose state is
// under the given state root instead.
func NewAt(root, name string) (*Backend, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	return newBackend(name, filepath.Join(root, "clusters", name)), nil
}

// tag is a short hash of the cluster name for link names, which the kernel
// limits to 15 characters.
func tag(name string) string {
	sum := sha256.Sum256([]byte(name))
	return fmt.Sprintf("%x", sum[:3])
}

// needRoot explains what works without root.
func needRoot(what string) error {
	if os.Geteuid() == 0 {
		return nil
	}
	return fmt.Errorf("%s needs root: the local cluster puts each node in its own network namespace. Run it with sudo. Without root, `kafkabook check` and `kafkabook render` still work", what)
}

// Up starts the cluster. A cluster of the same name left behind by a crash
// is removed first; one that is up, or private to a process that still
// runs, is an error. Unless cfg.Keep, the cluster is private to this
// process: its JVMs die with it.
func (b *Backend) Up(ctx context.Context, cfg cluster.Config, progress cluster.Progress) (cluster.Status, error) {
	if cfg.Ready == nil {
		return cluster.Status{}, cluster.ErrNoReady
	}
	if err := needRoot("cluster up"); err != nil {
		return cluster.Status{}, err
	}
	if cfg.Security != "" && cfg.Security != cluster.SecuritySASLSSL {
		return cluster.Status{}, fmt.Errorf("--security %q: use %s, or leave it out for plaintext", cfg.Security, cluster.SecuritySASLSSL)
	}
	if cfg.Nodes < 1 || cfg.Nodes > maxNodes {
		return cluster.Status{}, fmt.Errorf("--nodes %d: a local cluster has 1 to %d nodes", cfg.Nodes, maxNodes)
	}
	switch cfg.Quorum {
	case "", cluster.QuorumStatic, cluster.QuorumDynamic:
	default:
		return cluster.Status{}, fmt.Errorf("--quorum %q: use %s or %s", cfg.Quorum, cluster.QuorumStatic, cluster.QuorumDynamic)
	}
	if cfg.PowerLoss {
		if err := needLayer(); err != nil {
			return cluster.Status{}, err
		}
	}
	if cfg.Clock {
		if err := needClock(); err != nil {
			return cluster.Status{}, err
		}
	}
	java, err := checkJava()
	if err != nil {
		return cluster.Status{}, err
	}
	dist, err := kafkadist.Install(ctx, cfg.Kafka, progress)
	if err != nil {
		return cluster.Status{}, err
	}
	unlock, err := b.lock()
	if err != nil {
		return cluster.Status{}, err
	}
	removed := false // nothing of the cluster is left: neither is its lock file
	defer func() {
		unlock()
		if removed {
			b.removeLockFile()
		}
	}()
	old, ok, err := b.load()
	if err != nil && !errors.Is(err, errDamaged) {
		return cluster.Status{}, err
	}
	if err != nil {
		progress("removing cluster %q, whose state file is damaged", b.name)
		if err := b.removeAll(ctx, b.guess(), progress); err != nil {
			return cluster.Status{}, err
		}
	} else if ok {
		switch {
		case !old.Kept && old.Owner.alive() && !old.Owner.isSelf():
			return cluster.Status{}, fmt.Errorf("cluster %q belongs to a kafkabook that still runs (pid %d); pick another --name, or wait for it to end", b.name, old.Owner.PID)
		case old.Ready && old.anyAlive():
			return cluster.Status{}, fmt.Errorf("cluster %q is already up: use it, or take it down first with `kafkabook cluster down --name %s`", b.name, b.name)
		}
		progress("removing what an earlier run of cluster %q left behind", b.name)
		if err := b.removeAll(ctx, old, progress); err != nil {
			return cluster.Status{}, err
		}
	}
	if err := b.removeAll(ctx, b.guess(), func(string, ...any) {}); err != nil {
		return cluster.Status{}, err
	}

	st, err := b.plan(cfg, dist)
	if err != nil {
		return cluster.Status{}, err
	}
	on := ""
	if st.PowerLoss {
		on = ", their data on the power-loss layer"
	}
	if st.Clock {
		on += ", libfaketime preloaded for their clocks"
	}
	progress("starting %d Kafka %s nodes (%s) on %s%s", cfg.Nodes, dist.Version, strings.TrimSpace(java), st.Network.Subnet, on)
	status, err := b.create(ctx, &st, cfg.Ready, progress)
	if err != nil {
		// Take down whatever exists, even when ctx is done (Ctrl-C).
		if rmErr := b.removeAll(context.WithoutCancel(ctx), st, func(string, ...any) {}); rmErr != nil {
			err = fmt.Errorf("%w\n(and cleaning up failed: %v)", err, rmErr)
		} else {
			removed = true
		}
		return cluster.Status{}, err
	}
	return status, nil
}

// plan names every resource of the new cluster and writes the state file
// before anything is created.
func (b *Backend) plan(cfg cluster.Config, dist kafkadist.Dist) (state, error) {
	taken := map[string]bool{}
	others, _ := filepath.Glob(filepath.Join(filepath.Dir(b.dir), "*", "state.json"))
	for _, f := range others {
		ob := newBackend(filepath.Base(filepath.Dir(f)), filepath.Dir(f))
		if o, ok, _ := ob.load(); ok {
			taken[o.Network.Subnet] = true
		}
	}
	t := tag(b.name)
	var tagByte byte
	fmt.Sscanf(t[:2], "%x", &tagByte)
	subnet, err := freeSubnet(tagByte, taken)
	if err != nil {
		return state{}, err
	}
	st := state{
		Name: b.name, Kafka: dist.Version, Libs: dist.Libs, Broker: cfg.Broker,
		ClusterID: cluster.RandomUUID(),
		Network:   Network{Bridge: "kb" + t, Subnet: subnet},
		Created:   time.Now().UTC(),
		Owner:     self(),
		Kept:      cfg.Keep,
		PowerLoss: cfg.PowerLoss,
		Clock:     cfg.Clock,
		Security:  cfg.Security,
		Dynamic:   cfg.Quorum == cluster.QuorumDynamic,
	}
	for i := 1; i <= cfg.Nodes; i++ {
		name := runbook.NodeName(i)
		n := nodeState{Name: name, ID: i, NS: "kb-" + b.name + "-" + name, Dir: filepath.Join(b.dir, name)}
		if st.Dynamic {
			n.DirectoryID = cluster.RandomUUID()
		}
		st.Nodes = append(st.Nodes, n)
	}
	return st, b.save(st)
}

// create builds the network, formats and starts every node, and waits for
// the brokers to be ready.
func (b *Backend) create(ctx context.Context, st *state, ready cluster.Ready, progress cluster.Progress) (cluster.Status, error) {
	if err := st.Network.createBridge(); err != nil {
		return cluster.Status{}, err
	}
	if err := b.exemptBridge(st); err != nil {
		return cluster.Status{}, err
	}
	for i, n := range st.Nodes {
		err := st.Network.createNode(n.NS, n.ID)
		st.Nodes[i].NSInode = nsInode(n.NS)
		if err != nil {
			return cluster.Status{}, err
		}
	}
	if err := b.save(*st); err != nil {
		return cluster.Status{}, err
	}
	if err := st.checkReach(ctx); err != nil {
		return cluster.Status{}, err
	}
	var scram []string
	if st.secure() {
		if err := b.makeSecrets(*st); err != nil {
			return cluster.Status{}, fmt.Errorf("making the TLS certificates and the admin password: %w", err)
		}
		var err error
		if scram, err = b.scramArgs(*st); err != nil {
			return cluster.Status{}, err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, n := range st.Nodes {
		g.Go(func() error { return st.prepare(gctx, n, scram...) })
	}
	progress("formatting storage of %d nodes", len(st.Nodes))
	if err := g.Wait(); err != nil {
		return cluster.Status{}, err
	}
	for i, n := range st.Nodes {
		n, err := st.launch(n)
		st.Nodes[i] = n
		if err := b.save(*st); err != nil {
			return cluster.Status{}, err
		}
		if err != nil {
			return cluster.Status{}, err
		}
	}
	status := b.status(*st)
	dead := func(context.Context) string {
		for _, n := range st.Nodes {
			if alive, _ := n.alive(); !alive {
				return n.Name
			}
		}
		return ""
	}
	tail := func(node string, lines int) string {
		for _, n := range st.Nodes {
			if n.Name == node {
				return n.logTail(lines)
			}
		}
		return ""
	}
	access, err := b.access(*st)
	if err != nil {
		return cluster.Status{}, err
	}
	if err := cluster.WaitBrokers(ctx, ready, access, status.Nodes, dead, tail, progress); err != nil {
		return cluster.Status{}, err
	}
	if st.secure() {
		if status.ClusterFile, err = b.writeClusterFile(*st); err != nil {
			return cluster.Status{}, fmt.Errorf("writing the cluster file: %w", err)
		}
	}
	st.Ready = true
	return status, b.save(*st)
}

// anyAlive reports whether any node process of the state still runs.
func (st state) anyAlive() bool {
	for _, n := range st.Nodes {
		if alive, _ := n.alive(); alive {
			return true
		}
	}
	return false
}

// Status describes the cluster from its state file and the live processes.
func (b *Backend) Status(ctx context.Context) (cluster.Status, error) {
	st, ok, err := b.load()
	if err != nil {
		return cluster.Status{}, err
	}
	if !ok {
		return cluster.Status{}, fmt.Errorf("%w: no cluster %q is up (start one with `kafkabook cluster up`)", cluster.ErrNotFound, b.name)
	}
	return b.status(st), nil
}

func (b *Backend) status(st state) cluster.Status {
	s := cluster.Status{Name: st.Name, Backend: Name, Kafka: st.Kafka, Broker: st.Broker, Quorum: cluster.QuorumStatic}
	if st.Dynamic {
		s.Quorum = cluster.QuorumDynamic
	}
	if st.secure() && st.Ready {
		s.ClusterFile = filepath.Join(b.dir, ClusterFileName)
	}
	for _, n := range st.Nodes {
		if n.Removed {
			s.Removed = append(s.Removed, n.Name)
			continue
		}
		s.Nodes = append(s.Nodes, cluster.Node{
			Name: n.Name, ID: n.ID, State: st.nodeState(n),
			Address: fmt.Sprintf("%s:%d", st.Network.nodeIP(n.ID), st.clientPort()),
			PID:     pidIfAlive(n), Kafka: n.Kafka, Broker: n.Broker, Added: n.Added,
		})
	}
	return s
}

func pidIfAlive(n nodeState) int {
	if alive, _ := n.alive(); alive {
		return n.PID
	}
	return 0
}

// nodeState combines the process, the network and the last op into one
// state: a dead process wins over a paused one, which wins over isolation.
func (st state) nodeState(n nodeState) cluster.State {
	alive, stopped := n.alive()
	switch {
	case !alive && (n.Last == "kill" || n.Last == "powerloss"):
		return cluster.Killed
	case !alive && n.Last == "stop":
		return cluster.Stopped
	case !alive:
		return cluster.Exited
	case stopped:
		return cluster.Paused
	case !st.Network.attached(n.ID):
		return cluster.Isolated
	}
	return cluster.Running
}

// Apply performs op on the named nodes, in the order given; the state is
// saved after each node.
func (b *Backend) Apply(ctx context.Context, op cluster.Op, names []string, progress cluster.Progress) error {
	return b.changing("cluster "+string(op), names, func(st *state, idx []int) error {
		for _, i := range idx {
			n, err := b.apply(ctx, st, op, st.Nodes[i], progress)
			st.Nodes[i] = n
			if saveErr := b.save(*st); saveErr != nil && err == nil {
				err = saveErr
			}
			if err != nil {
				return fmt.Errorf("%s %s: %w", op, n.Name, err)
			}
		}
		return nil
	})
}

func (b *Backend) apply(ctx context.Context, st *state, op cluster.Op, n nodeState, progress cluster.Progress) (nodeState, error) {
	alive, _ := n.alive()
	switch op {
	case cluster.Kill:
		if err := n.signal(syscall.SIGKILL); err != nil {
			return n, err
		}
		if err := n.waitGone(ctx, 5*time.Second, nil); err != nil {
			return n, fmt.Errorf("after SIGKILL: %w", err)
		}
		dropSockets(ctx, n, progress)
		if alive {
			n.Last = "kill"
		}
	case cluster.Stop:
		if !alive {
			return n, nil
		}
		n.signal(syscall.SIGCONT) // a paused JVM cannot shut down
		if err := n.signal(syscall.SIGTERM); err != nil {
			return n, err
		}
		if err := n.waitGone(ctx, 60*time.Second, progress); err != nil {
			return n, fmt.Errorf("after SIGTERM: %w (use kill)", err)
		}
		n.Last = "stop"
	case cluster.Start:
		if alive {
			return n, nil
		}
		return st.launch(n)
	case cluster.Pause:
		if !alive {
			return n, fmt.Errorf("%s is not running", n.Name)
		}
		if err := n.signal(syscall.SIGSTOP); err != nil {
			return n, err
		}
		n.Last = "pause"
	case cluster.Resume:
		if err := n.signal(syscall.SIGCONT); err != nil {
			return n, err
		}
		if alive {
			n.Last = "resume"
		}
	case cluster.Isolate:
		return n, st.Network.detach(n.ID)
	case cluster.Rejoin:
		return n, st.Network.attach(n.ID)
	default:
		return n, fmt.Errorf("unknown operation %q", op)
	}
	return n, nil
}

// Logs opens a node's broker log.
func (b *Backend) Logs(ctx context.Context, node string) (io.ReadCloser, error) {
	st, ok, err := b.load()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no cluster %q is up", b.name)
	}
	for _, n := range st.Nodes {
		if n.Name == node {
			return os.Open(filepath.Join(n.Dir, LogFile))
		}
	}
	return nil, fmt.Errorf("no node %q in cluster %q (it has k1..k%d)", node, b.name, len(st.Nodes))
}

// LogPath is where a node's broker log is, for readers that follow it.
func (b *Backend) LogPath(node string) (string, error) {
	st, ok, err := b.load()
	if err != nil || !ok {
		return "", fmt.Errorf("no cluster %q is up", b.name)
	}
	for _, n := range st.Nodes {
		if n.Name == node {
			return filepath.Join(n.Dir, LogFile), nil
		}
	}
	return "", fmt.Errorf("no node %q in cluster %q", node, b.name)
}

// Down removes the cluster, then checks that no process, namespace, link,
// mount or directory of it remains. When something does, it returns a
// *LeftoverError naming each leftover and how to remove it, and keeps the
// state file so that a later Down retries. With nothing to remove it
// succeeds.
func (b *Backend) Down(ctx context.Context, progress cluster.Progress) error {
	if err := needRoot("cluster down"); err != nil {
		return err
	}
	unlock, err := b.lock()
	if err != nil {
		return err
	}
	st, ok, err := b.load()
	switch {
	case errors.Is(err, errDamaged):
		progress("%v; removing everything named after cluster %s", err, b.name)
		st = b.guess()
	case err != nil:
		unlock()
		return err
	case !ok:
		st = b.guess()
	}
	err = b.removeAll(ctx, st, progress)
	unlock()
	if err == nil {
		b.removeLockFile()
	}
	return err
}
