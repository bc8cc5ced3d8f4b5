package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/kafkabook/kafkabook/internal/atomicfile"
	"golang.org/x/sys/unix"
)

// state is what a local cluster created and what was last done to each
// node. It is written before each resource is created, so `down` can remove
// the leftovers of a crashed run, and only those.
type state struct {
	Name      string            `json:"name"`
	Kafka     string            `json:"kafka"`
	Libs      string            `json:"libs"`
	ClusterID string            `json:"cluster_id"`
	Broker    map[string]string `json:"broker"`
	Network   Network           `json:"network"`
	Nodes     []nodeState       `json:"nodes"`
	Ready     bool              `json:"ready"` // Up finished
	Created   time.Time         `json:"created"`
	// Owner is the process that started the cluster. Unless Kept, the
	// cluster is private to it: its JVMs die with it, and once it is gone
	// the cluster is abandoned and the next kafkabook command removes it.
	Owner *owner `json:"owner,omitempty"`
	Kept  bool   `json:"kept"` // meant to outlive its owner
	// PowerLoss puts every node's data directory on the power-loss layer
	// (see powerloss.go).
	PowerLoss bool `json:"powerloss,omitempty"`
	// Clock runs every broker with libfaketime preloaded, its wall clock
	// set from the node's clock file (see clock.go).
	Clock bool `json:"clock,omitempty"`
	// Security is cluster.SecuritySASLSSL for a cluster whose clients
	// use TLS and SCRAM (see security.go), else "".
	Security string `json:"security,omitempty"`
	// Dynamic formats the controller quorum as a KIP-853 one: every node
	// finds the quorum through controller.quorum.bootstrap.servers, and
	// the nodes the cluster was made with are its initial voters, each
	// known by its DirectoryID.
	Dynamic bool `json:"dynamic_quorum,omitempty"`
}

// nodeState is one node's resources and its intended state.
type nodeState struct {
	Name      string    `json:"name"`
	ID        int       `json:"id"`
	NS        string    `json:"netns"`
	NSInode   uint64    `json:"netns_inode,omitempty"` // the namespace itself, to find it once its name is gone
	Dir       string    `json:"dir"`
	PID       int       `json:"pid"`
	StartTime uint64    `json:"start_time"`      // /proc start time of PID, against PID reuse
	Last      string    `json:"last"`            // last op applied: start, stop, kill, pause, resume, powerloss
	Layer     *sideProc `json:"layer,omitempty"` // the process serving its power-loss layer
	// Delayer is the process delaying what the node sends (link
	// --delay, delay.go), while a delay is in force.
	Delayer *sideProc `json:"delayer,omitempty"`
	// Clock is how far the node's wall clock is set from the host's, in a
	// cluster with Clock.
	Clock time.Duration `json:"clock,omitempty"`
	// Kafka and Libs are the release the node starts on and its jars,
	// when not the cluster's (Release: a rolling upgrade).
	Kafka string `json:"kafka,omitempty"`
	Libs  string `json:"libs,omitempty"`
	// Broker are the node's own settings on top of the cluster's
	// (Configure: a rolling restart's change).
	Broker map[string]string `json:"broker,omitempty"`
	// Added marks a broker-only node AddBroker started after the cluster
	// was made (it is no controller); Removed a node RemoveBroker took
	// out, whose resources stay until Down or Reset.
	Added   bool `json:"added,omitempty"`
	Removed bool `json:"removed,omitempty"`
	// Controller marks an added node that is a broker and controller, as
	// the cluster's first nodes are (AddController): it joins a dynamic
	// quorum as an observer until it is made a voter.
	Controller bool `json:"controller,omitempty"`
	// DirectoryID is the metadata log directory's id of one of a dynamic
	// quorum's initial voters, given to the storage format.
	DirectoryID string `json:"directory_id,omitempty"`
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,23}$`)

// checkName rejects names that would not fit link and namespace names.
func checkName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("cluster name %q: use 1 to 24 lower-case letters, digits and dashes", name)
	}
	return nil
}

func (b *Backend) stateFile() string { return filepath.Join(b.dir, "state.json") }
func (b *Backend) lockFile() string  { return b.dir + ".lock" }

// errDamaged marks a state file that exists but cannot be read.
var errDamaged = errors.New("damaged state file")

// load reads the state file; ok is false when there is none.
func (b *Backend) load() (st state, ok bool, err error) {
	data, err := os.ReadFile(b.stateFile())
	if errors.Is(err, os.ErrNotExist) {
		return state{}, false, nil
	}
	if err != nil {
		return state{}, false, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return state{}, false, fmt.Errorf("%w %s (%v): run `kafkabook cluster down --name %s` to remove the cluster", errDamaged, b.stateFile(), err, b.name)
	}
	if st.Owner == nil && !st.Kept {
		st.Owner = legacyOwner(b.name)
	}
	return st, true, nil
}

// save writes the state file atomically.
func (b *Backend) save(st state) error {
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(b.stateFile(), data, 0o644)
}

// lock serialises changes to one cluster across processes. The lock is an
// flock on <cluster dir>.lock. Down removes that file once the cluster is
// gone, so a process that waited on it may end up holding a file that is no
// longer there: after locking, the file at the path must still be the one
// locked, else lock tries again on the new one.
func (b *Backend) lock() (unlock func(), err error) {
	return lockPath(b.lockFile(), 0)
}

// tryLock is lock without waiting; ok is false when another process holds
// the lock.
func (b *Backend) tryLock() (unlock func(), ok bool, err error) {
	unlock, err = lockPath(b.lockFile(), unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return nil, false, nil
	}
	return unlock, err == nil, err
}

func lockPath(path string, flags int) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, err
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|flags); err != nil {
			f.Close()
			return nil, err
		}
		var held, now unix.Stat_t
		if unix.Fstat(int(f.Fd()), &held) == nil && unix.Stat(path, &now) == nil &&
			held.Dev == now.Dev && held.Ino == now.Ino {
			return func() { f.Close() }, nil
		}
		// Removed (or replaced) while we waited: lock the current one.
		f.Close()
	}
}

// removeLockFile deletes the lock file of a cluster that is gone, unless
// another process holds or waits for it: it takes the lock without
// waiting, deletes the file while no one else can hold it, and releases
// it. A process that was about to wait on the old file notices (see lock)
// and locks a new one.
func (b *Backend) removeLockFile() {
	unlock, ok, err := b.tryLock()
	if err != nil || !ok {
		return
	}
	defer unlock()
	if _, err := os.Stat(b.dir); errors.Is(err, os.ErrNotExist) {
		os.Remove(b.lockFile())
	}
}

// changing runs change on the cluster's state under its lock, as root
// (what says what needs it, for the error), with the indexes of the
// nodes named; the state is saved after, also when change fails part way.
func (b *Backend) changing(what string, nodes []string, change func(st *state, idx []int) error) error {
	if err := needRoot(what); err != nil {
		return err
	}
	unlock, err := b.lock()
	if err != nil {
		return err
	}
	defer unlock()
	st, ok, err := b.load()
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no cluster %q is up (start one with `kafkabook cluster up`)", b.name)
	}
	idx, err := st.indexes(nodes)
	if err != nil {
		return err
	}
	err = change(&st, idx)
	if saveErr := b.save(st); saveErr != nil && err == nil {
		err = saveErr
	}
	return err
}
