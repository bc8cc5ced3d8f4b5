package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/atomicfile"
	"github.com/kafkabook/kafkabook/internal/cluster"
)

// A cluster started with cluster.Config.Clock runs every broker with
// libfaketime preloaded into its JVM (LD_PRELOAD), reading the node's
// offset from a file of its own (clockFile), so that kafkabook can step
// the broker's wall clock while it runs; nothing else on the machine, nor
// the kernel's clock, moves. The settings are cluster.FaketimeEnv's.

// faketimeDirs are where distributions install the library.
var faketimeDirs = []string{"/usr/lib/*/faketime", "/usr/lib/faketime", "/usr/lib64/faketime", "/usr/local/lib/faketime"}

// faketimeLib is the path of libfaketime.so.1, "" when there is none.
func faketimeLib() string {
	for _, d := range faketimeDirs {
		if m, _ := filepath.Glob(filepath.Join(d, "libfaketime.so.1")); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

// ClockMissing is what this machine lacks to step a broker's wall clock
// (libfaketime of the release the settings are proven on, and root for
// the local backend), worded for `kafkabook check`; "" when it has it all.
func ClockMissing() string {
	const pkg = "Debian's faketime package: apt-get install faketime"
	var miss []string
	if os.Geteuid() != 0 {
		miss = append(miss, "root")
	}
	switch v := faketimeInstalled(); {
	case faketimeLib() == "" || v == "":
		miss = append(miss, "libfaketime "+cluster.FaketimeVersion+" ("+pkg+")")
	case v != cluster.FaketimeVersion:
		miss = append(miss, fmt.Sprintf("libfaketime %s (this machine has %s, whose handling of the JVM's timed waits kafkabook has not proven)", cluster.FaketimeVersion, v))
	}
	return strings.Join(miss, ", ")
}

// faketimeInstalled is the release the faketime wrapper says it is of
// ("faketime: Version 0.9.10"), "" without it.
func faketimeInstalled() string {
	out, err := exec.Command("faketime", "--version").CombinedOutput()
	if err != nil {
		return ""
	}
	_, v, ok := strings.Cut(string(out), "Version ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(strings.SplitN(v, "\n", 2)[0])
}

func needClock() error {
	if m := ClockMissing(); m != "" {
		return fmt.Errorf("clock needs libfaketime preloaded into each broker, and this machine lacks %s; kafkabook does not fake a clock with something weaker", m)
	}
	return nil
}

// clockFile is node n's offset, as libfaketime reads it: "+3600.000".
func (n nodeState) clockFile() string { return filepath.Join(n.Dir, "clock") }

// writeClock writes node n's offset where its broker's libfaketime reads
// it; a broker started later starts on it, as on a machine whose clock is
// off.
func (n nodeState) writeClock() error {
	return atomicfile.WriteFile(n.clockFile(), []byte(cluster.ClockText(n.Clock)), 0o644)
}

// clockEnv is the environment of node n's broker in a cluster with
// Clock: the JVM's own, with libfaketime preloaded and set as above.
func (n nodeState) clockEnv() ([]string, error) {
	lib := faketimeLib()
	if lib == "" {
		return nil, needClock()
	}
	if err := n.writeClock(); err != nil {
		return nil, err
	}
	return append(os.Environ(), cluster.FaketimeEnv(lib, n.clockFile())...), nil
}

var _ cluster.Clocks = (*Backend)(nil)

// Clock moves the named nodes' wall clocks by jump, or puts them right.
// A node that is down gets the offset too, and starts on it.
func (b *Backend) Clock(ctx context.Context, names []string, jump time.Duration, reset bool) ([]cluster.ClockState, error) {
	var out []cluster.ClockState
	err := b.changing("clock", names, func(st *state, idx []int) error {
		if !st.Clock {
			return cluster.NoClock(b.name)
		}
		for _, i := range idx {
			n := &st.Nodes[i]
			off, err := cluster.NextOffset(n.Name, n.Clock, jump, reset)
			if err != nil {
				return err
			}
			n.Clock = off
			if err := n.writeClock(); err != nil {
				return fmt.Errorf("clock %s: %w", n.Name, err)
			}
			out = append(out, cluster.ClockState{Node: n.Name, Offset: off})
		}
		return nil
	})
	return out, err
}

// ClockStates is every node's offset; none for a cluster without Clock.
func (b *Backend) ClockStates(ctx context.Context) ([]cluster.ClockState, error) {
	st, ok, err := b.load()
	if err != nil || !ok || !st.Clock {
		return nil, err
	}
	var out []cluster.ClockState
	for _, n := range st.Nodes {
		if !n.Removed {
			out = append(out, cluster.ClockState{Node: n.Name, Offset: n.Clock})
		}
	}
	return out, nil
}
