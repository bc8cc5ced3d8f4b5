package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
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
}

// nodeState is one node's resources and its intended state.
type nodeState struct {
	Name      string `json:"name"`
	ID        int    `json:"id"`
	NS        string `json:"netns"`
	Dir       string `json:"dir"`
	PID       int    `json:"pid"`
	StartTime uint64 `json:"start_time"` // /proc start time of PID, against PID reuse
	Last      string `json:"last"`       // last op applied: start, stop, kill, pause, resume
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,23}$`)

// checkName rejects names that would not fit link and namespace names.
func checkName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("cluster name %q: use 1 to 24 lower-case letters, digits and dashes", name)
	}
	return nil
}

// StateRoot is where clusters keep their state, data and logs:
// $KAFKABOOK_STATE, else ~/.local/state/kafkabook.
func StateRoot() (string, error) {
	if d := os.Getenv("KAFKABOOK_STATE"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "kafkabook"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory (set KAFKABOOK_STATE): %w", err)
	}
	return filepath.Join(home, ".local", "state", "kafkabook"), nil
}

func (b *Backend) stateFile() string { return filepath.Join(b.dir, "state.json") }

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
		return state{}, false, fmt.Errorf("%s is damaged (%v): run `kafkabook cluster down --name %s` to remove the cluster", b.stateFile(), err, b.name)
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
	tmp := b.stateFile() + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, b.stateFile())
}

// lock serialises changes to one cluster across processes.
func (b *Backend) lock() (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(b.dir), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(b.dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
