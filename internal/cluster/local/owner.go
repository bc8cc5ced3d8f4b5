package local

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/procstat"
)

// owner is the process that started a cluster (its state file's "owner":
// pid and start time); nil when the state file names none.
type owner struct{ procstat.Proc }

// self is this process as an owner.
func self() *owner { return &owner{procstat.Self()} }

// alive reports whether the owner still runs (a zombie does not count).
// An owner with no recorded start time is any process with its pid.
func (o *owner) alive() bool { return o != nil && o.Alive() }

var legacyRunRE = regexp.MustCompile(`^run([0-9]+)$`)

// legacyOwner is the owner of a cluster whose state file predates owners:
// `kafkabook run` named its private cluster run<pid>, so that pid owned
// it. Other clusters of that time have no known owner.
func legacyOwner(name string) *owner {
	m := legacyRunRE.FindStringSubmatch(name)
	if m == nil {
		return nil
	}
	pid, err := strconv.Atoi(m[1])
	if err != nil {
		return nil
	}
	return &owner{procstat.Proc{PID: pid}}
}

// isSelf reports whether this process is the owner.
func (o *owner) isSelf() bool { return o != nil && o.IsSelf() }

// private reports whether the cluster's JVMs are to die with the process
// starting them: the cluster is not kept and this process owns it.
func (st state) private() bool { return !st.Kept && st.Owner.isSelf() }

// abandoned reports whether the cluster is private to an owner that is
// gone. A cluster without a recorded owner (made before owners were
// recorded) is never taken for abandoned.
func (st state) abandoned() bool { return !st.Kept && st.Owner != nil && !st.Owner.alive() }

// lastSign is when the cluster last showed a sign of life: the newest
// modification time of anything under its directory (state file, logs,
// data). Its JVMs die with a private cluster's owner, so for an abandoned
// cluster this is about when the owner went.
func lastSign(dir string) time.Time {
	var last time.Time
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(last) {
			last = info.ModTime()
		}
		return nil
	})
	return last
}

// Cluster states in List.
const (
	StateUp        = "up"        // every node's JVM runs
	StatePartlyUp  = "partly up" // some do
	StateDown      = "down"      // none does (stopped, killed, or left over)
	StateAbandoned = "abandoned" // private to a process that is gone; the next kafkabook command removes it
)

// Info is one cluster as `kafkabook cluster list` shows it.
type Info struct {
	Name       string    `json:"name"`
	State      string    `json:"state"` // up, partly up, down, abandoned
	Created    time.Time `json:"created"`
	Nodes      int       `json:"nodes"`
	NodesUp    int       `json:"nodes_up"`
	Kafka      string    `json:"kafka,omitempty"`
	OwnerPID   int       `json:"owner_pid,omitempty"` // 0 when not recorded
	OwnerAlive bool      `json:"owner_alive"`
	Kept       bool      `json:"kept"`
	Dir        string    `json:"dir"`
	Problem    string    `json:"problem,omitempty"` // e.g. a damaged state file
	Remove     string    `json:"remove"`            // the command that removes it
}

// List describes every cluster under the state root, whether it runs, was
// left by a crash, or is half removed, sorted by name.
func List() ([]Info, error) {
	root, err := cluster.StateRoot()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(root, "clusters"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, e := range entries {
		if !e.IsDir() || checkName(e.Name()) != nil {
			continue
		}
		b, err := New(e.Name())
		if err != nil {
			continue
		}
		out = append(out, b.info())
	}
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// info describes the cluster for List.
func (b *Backend) info() Info {
	in := Info{Name: b.name, Dir: b.dir, State: StateDown,
		Remove: "kafkabook cluster down --name " + b.name}
	st, ok, err := b.load()
	if fi, serr := os.Stat(b.dir); serr == nil {
		in.Created = fi.ModTime()
	}
	switch {
	case err != nil:
		in.Problem = err.Error()
		return in
	case !ok:
		in.Problem = "no state file (left over from a removal that did not finish)"
		return in
	}
	if !st.Created.IsZero() {
		in.Created = st.Created
	}
	in.Kafka, in.Nodes, in.Kept = st.Kafka, len(st.Nodes), st.Kept
	if st.Owner != nil {
		in.OwnerPID, in.OwnerAlive = st.Owner.PID, st.Owner.alive()
	}
	for _, n := range st.Nodes {
		if alive, _ := n.alive(); alive {
			in.NodesUp++
		}
	}
	switch {
	case st.abandoned():
		in.State = StateAbandoned
	case in.NodesUp > 0 && in.NodesUp == in.Nodes:
		in.State = StateUp
	case in.NodesUp > 0:
		in.State = StatePartlyUp
	}
	return in
}

// Reaped is an abandoned cluster that Reap found.
type Reaped struct {
	Name     string
	OwnerPID int
	Since    time.Time // the cluster's last sign of life: about when its owner went
	Err      error     // why it could not be removed; nil when it was
}

// Reap removes every abandoned cluster under the state root: private to a
// process that is gone. Kept clusters are never touched, nor clusters another
// process is working on (holding their lock). Without root it does nothing:
// it could not remove a namespace.
func Reap(ctx context.Context) []Reaped {
	if os.Geteuid() != 0 {
		return nil
	}
	infos, err := List()
	if err != nil {
		return nil
	}
	var out []Reaped
	for _, in := range infos {
		if in.State != StateAbandoned {
			continue
		}
		b, err := New(in.Name)
		if err != nil {
			continue
		}
		if r, ok := b.reap(ctx); ok {
			out = append(out, r)
		}
	}
	return out
}

// reap removes the cluster if, under its lock, it is still abandoned.
func (b *Backend) reap(ctx context.Context) (Reaped, bool) {
	unlock, ok, err := b.tryLock()
	if err != nil || !ok {
		return Reaped{}, false
	}
	st, ok, err := b.load()
	if err != nil || !ok || !st.abandoned() {
		unlock()
		return Reaped{}, false
	}
	r := Reaped{Name: b.name, OwnerPID: st.Owner.PID, Since: lastSign(b.dir)}
	r.Err = b.removeAll(ctx, st, func(string, ...any) {})
	unlock()
	if r.Err == nil {
		b.removeLockFile()
	}
	return r, true
}
