// Package external is the backend of a Kafka cluster kafkabook did not
// start: brokers on other machines, in a cloud, or a local cluster with
// TLS and SASL listeners. A cluster file (see File) says where its
// brokers answer, how a client authenticates (the secret read from the
// environment or a file, never from the runbook), and which command
// applies each fault to a node (ssh, systemctl, a cloud CLI; run without
// a shell). Up only checks that every broker answers and Down removes
// nothing: the cluster is not kafkabook's to create or delete.
//
// The backend cannot see the brokers' processes: a node's state is the
// last command it applied to it (running once Up saw every broker
// registered), kept in the state root so that one CLI command sees what
// an earlier one did; "unknown" before any.
package external

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kafkabook/kafkabook/internal/atomicfile"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/runbook"
)

// Name is this backend's name in provenance and status.
const Name = "external"

// Backend is one external cluster, as its cluster file describes it.
type Backend struct {
	file      *File
	stateFile string

	mu sync.Mutex
}

var (
	_ cluster.Backend      = (*Backend)(nil)
	_ cluster.Accessor     = (*Backend)(nil)
	_ cluster.Placeholders = (*Backend)(nil)
)

// New returns the backend of the cluster file at path; the last command
// applied to each node is kept under cluster.StateRoot.
func New(path string) (*Backend, error) {
	f, err := Load(path)
	if err != nil {
		return nil, err
	}
	root, err := cluster.StateRoot()
	if err != nil {
		return nil, err
	}
	return NewFor(f, filepath.Join(root, "external", f.Name+".json")), nil
}

// NewFor returns the backend of a loaded cluster file that keeps node
// states in stateFile.
func NewFor(f *File, stateFile string) *Backend {
	return &Backend{file: f, stateFile: stateFile}
}

// File is the backend's cluster file.
func (b *Backend) File() *File { return b.file }

// Access is the TLS trust and SASL identity of the cluster file.
func (b *Backend) Access(ctx context.Context) (cluster.Access, error) {
	return b.file.Access()
}

// Up checks that every broker of the cluster file is registered and
// unfenced, but for those the last command applied took down (which a
// run brings back first); it creates nothing. cfg.Nodes, when set, must match the file,
// and so must cfg.Kafka when the file names a release.
func (b *Backend) Up(ctx context.Context, cfg cluster.Config, progress cluster.Progress) (cluster.Status, error) {
	if cfg.Ready == nil {
		return cluster.Status{}, cluster.ErrNoReady
	}
	f := b.file
	if cfg.Nodes > 0 && cfg.Nodes != len(f.Nodes) {
		return cluster.Status{}, fmt.Errorf("the runbook wants %d nodes; the external cluster %s has %d", cfg.Nodes, f.Name, len(f.Nodes))
	}
	if cfg.Kafka != "" && f.Kafka != "" && cfg.Kafka != f.Kafka {
		return cluster.Status{}, fmt.Errorf("the run is for Kafka %s; the external cluster %s runs %s (run with --kafka %s)", cfg.Kafka, f.Name, f.Kafka, f.Kafka)
	}
	if len(cfg.Broker) > 0 {
		progress("the external cluster keeps its own broker settings: the runbook's broker: settings are not applied")
	}
	access, err := b.Access(ctx)
	if err != nil {
		return cluster.Status{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	states, err := b.load()
	if err != nil {
		return cluster.Status{}, err
	}
	if states == nil {
		states = map[string]cluster.State{}
	}
	// A node an earlier command took down stays down as recorded (a run
	// brings it back first); every other node must answer.
	var want []cluster.Node
	var down []string
	for _, n := range b.statusFrom(states).Nodes {
		if n.State == cluster.Unknown || n.State == cluster.Running {
			want = append(want, n)
		} else {
			down = append(down, fmt.Sprintf("%s (%s)", n.Name, n.State))
		}
	}
	if len(want) == 0 {
		return cluster.Status{}, fmt.Errorf("every node of the external cluster %s is down as the last commands left it: start them (kafkabook cluster start --cluster-file FILE k1 ...)", f.Name)
	}
	progress("checking that the brokers of external cluster %s answer (kafkabook creates nothing there)", f.Name)
	if len(down) > 0 {
		progress("not waiting for %s: down since the last command applied to it", strings.Join(down, ", "))
	}
	none := func(context.Context) string { return "" }
	noTail := func(string, int) string { return "" }
	if err := cluster.WaitBrokers(ctx, cfg.Ready, access, want, none, noTail, progress); err != nil {
		return cluster.Status{}, err
	}
	for _, n := range want {
		node, _ := f.Node(n.Name)
		states[node.Name] = cluster.Running
	}
	if err := b.save(states); err != nil {
		return cluster.Status{}, err
	}
	return b.statusFrom(states), nil
}

// Status lists the nodes with the state the last command applied left
// them in; it never fails for want of a cluster, which it cannot see.
func (b *Backend) Status(ctx context.Context) (cluster.Status, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	states, err := b.load()
	if err != nil {
		return cluster.Status{}, err
	}
	return b.statusFrom(states), nil
}

// statusFrom is the status for the given node states; a node without one
// is unknown. Nodes are named k<ID>, as runbooks refer to them.
func (b *Backend) statusFrom(states map[string]cluster.State) cluster.Status {
	f := b.file
	kafka := f.Kafka
	if kafka == "" {
		kafka = "unknown"
	}
	s := cluster.Status{Name: f.Name, Backend: Name, Kafka: kafka}
	for id := 1; id <= len(f.Nodes); id++ {
		n, _ := f.Node(runbook.NodeName(id))
		state, ok := states[n.Name]
		if !ok {
			state = cluster.Unknown
		}
		s.Nodes = append(s.Nodes, cluster.Node{Name: runbook.NodeName(n.ID), ID: n.ID, Address: n.Address, State: state})
	}
	return s
}

// Apply runs op's command for each node (by its name in the cluster file
// or as k<ID>), in order, without a shell; every line it prints goes to
// progress. A command that fails stops there.
func (b *Backend) Apply(ctx context.Context, op cluster.Op, names []string, progress cluster.Progress) error {
	f := b.file
	if len(f.Faults[string(op)]) == 0 {
		return fmt.Errorf("the external cluster %s has no command for %s: add faults: %s: [...] to its cluster file", f.Name, op, op)
	}
	var nodes []Node
	for _, ref := range names {
		n, ok := f.Node(ref)
		if !ok {
			return fmt.Errorf("no node %q in the external cluster %s (%s)", ref, f.Name, b.nodeList())
		}
		nodes = append(nodes, n)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range nodes {
		argv := expand(f.Faults[string(op)], n)
		err := run(ctx, argv, func(line string) { progress("%s k%d (%s): %s", op, n.ID, n.Name, line) })
		if err != nil {
			return fmt.Errorf("%s k%d (%s): %s: %w", op, n.ID, n.Name, strings.Join(argv, " "), err)
		}
		states, err := b.load()
		if err != nil {
			return err
		}
		if states == nil {
			states = map[string]cluster.State{}
		}
		f, _ := cluster.FaultOf(op)
		states[n.Name] = f.Leaves // what a node is once op's command succeeded
		if err := b.save(states); err != nil {
			return err
		}
	}
	return nil
}

func (b *Backend) nodeList() string {
	var s []string
	for _, n := range b.file.Nodes {
		s = append(s, fmt.Sprintf("k%d = %s", n.ID, n.Name))
	}
	return strings.Join(s, ", ")
}

// run runs argv without a shell; each line of its output, stdout and
// stderr merged, goes to line.
func run(ctx context.Context, argv []string, line func(string)) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			line(t)
		}
	}
	return err
}

// HasLogs reports whether the cluster file says how to read broker logs.
func (b *Backend) HasLogs() bool { return len(b.file.Logs) > 0 }

// Logs runs the cluster file's logs command for the node and returns what
// it printed.
func (b *Backend) Logs(ctx context.Context, node string) (io.ReadCloser, error) {
	if !b.HasLogs() {
		return nil, cluster.ErrNoLogs
	}
	n, ok := b.file.Node(node)
	if !ok {
		return nil, fmt.Errorf("no node %q in the external cluster %s (%s)", node, b.file.Name, b.nodeList())
	}
	argv := expand(b.file.Logs, n)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("logs of k%d (%s): %s: %w: %s", n.ID, n.Name, strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
	}
	return io.NopCloser(bytes.NewReader(out)), nil
}

// Down removes nothing: the cluster outlives kafkabook. It forgets the
// node states it kept.
func (b *Backend) Down(ctx context.Context, progress cluster.Progress) error {
	progress("the external cluster %s is not kafkabook's: down leaves it as it is", b.file.Name)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := os.Remove(b.stateFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// load reads the node states; nil when none were kept.
func (b *Backend) load() (map[string]cluster.State, error) {
	data, err := os.ReadFile(b.stateFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var states map[string]cluster.State
	if err := json.Unmarshal(data, &states); err != nil {
		// Only a record of past commands: start again from unknown.
		return nil, nil
	}
	return states, nil
}

func (b *Backend) save(states map[string]cluster.State) error {
	if err := os.MkdirAll(filepath.Dir(b.stateFile), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(states, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(b.stateFile, data, 0o644)
}

// Placeholders names the cluster file's directory, where its CA and
// password files usually are, "$CLUSTER_FILE_DIR" in published evidence
// (a driver reports its trust store's path).
func (b *Backend) Placeholders() map[string]string {
	if b.file.dir == "" {
		return nil
	}
	return map[string]string{b.file.dir: "$CLUSTER_FILE_DIR"}
}

var _ cluster.Releaser = (*Backend)(nil)

// Release runs the cluster file's release command for node and version:
// the node runs version from its next start, which the stop and start
// commands then make (restart --to). Without the command it says what to
// add.
func (b *Backend) Release(ctx context.Context, node, version string, progress cluster.Progress) error {
	f := b.file
	if len(f.Release) == 0 {
		return fmt.Errorf("%s", f.ReleaseMissing())
	}
	n, ok := f.Node(node)
	if !ok {
		return fmt.Errorf("no node %q in the external cluster %s (%s)", node, f.Name, b.nodeList())
	}
	argv := expand(f.Release, n, "{version}", version)
	if err := run(ctx, argv, func(line string) { progress("release k%d (%s): %s", n.ID, n.Name, line) }); err != nil {
		return fmt.Errorf("release k%d (%s) to %s: %s: %w", n.ID, n.Name, version, strings.Join(argv, " "), err)
	}
	return nil
}
