package local

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/internal/procstat"
)

// startTime is pid's start time (procstat.Stat.Start), which tells it
// from a later process with its pid; 0 when it cannot be read.
func startTime(pid int) uint64 {
	st, _ := procstat.Read(pid)
	return st.Start
}

// comm is a process's command name, for messages.
func comm(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(data))
}

// pids lists every process on the host.
func pids() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// alive reports whether the node's recorded process still runs (a zombie
// does not count), and whether it is frozen by SIGSTOP.
func (n nodeState) alive() (alive, stopped bool) {
	st, err := procstat.Read(n.PID)
	if err != nil || st.Start != n.StartTime || st.Dead() {
		return false, false
	}
	return true, st.Stopped()
}

// signal sends sig to the node's process if it is still the one we started.
func (n nodeState) signal(sig syscall.Signal) error {
	if alive, _ := n.alive(); !alive {
		return nil
	}
	return syscall.Kill(n.PID, sig)
}

// waitGone waits until the node's process has exited, telling progress
// about it when that takes a while.
func (n nodeState) waitGone(ctx context.Context, timeout time.Duration, progress cluster.Progress) error {
	return poll.Until(ctx, 50*time.Millisecond, timeout, progress, func(context.Context) (bool, string, error) {
		alive, _ := n.alive()
		return !alive, fmt.Sprintf("waiting for %s (pid %d) to exit", n.Name, n.PID), nil
	})
}

// javaPIDsUnder finds live processes whose command line mentions dir: the
// JVMs of a cluster, whoever started them.
func javaPIDsUnder(dir string) []int {
	var out []int
	for _, pid := range pids() {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		if strings.Contains(string(cmdline), dir+"/") && procstat.Running(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// pidsInNetns finds live processes inside any of the network namespaces
// with the given inodes, by inode.
func pidsInNetns(inodes map[uint64]string) map[int]string {
	out := map[int]string{}
	if len(inodes) == 0 {
		return out
	}
	for _, pid := range pids() {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid))
		if err != nil {
			continue
		}
		var ino uint64
		if _, err := fmt.Sscanf(link, "net:[%d]", &ino); err != nil {
			continue
		}
		if node, ok := inodes[ino]; ok && procstat.Running(pid) {
			out[pid] = node
		}
	}
	return out
}
