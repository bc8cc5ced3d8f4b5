package local

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// procInfo is what /proc says about a pid: its state letter (R, S, T, Z...)
// and its start time in clock ticks since boot.
func procInfo(pid int) (stateLetter byte, start uint64, ok bool) {
	if pid <= 0 {
		return 0, 0, false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// The command name may hold spaces and parentheses: fields start after
	// the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, 0, false
	}
	start, _ = strconv.ParseUint(f[19], 10, 64)
	return f[0][0], start, true
}

// alive reports whether the node's recorded process still runs (a zombie
// does not count), and whether it is frozen by SIGSTOP.
func (n nodeState) alive() (alive, stopped bool) {
	st, start, ok := procInfo(n.PID)
	if !ok || start != n.StartTime || st == 'Z' || st == 'X' {
		return false, false
	}
	return true, st == 'T' || st == 't'
}

// signal sends sig to the node's process if it is still the one we started.
func (n nodeState) signal(sig syscall.Signal) error {
	if alive, _ := n.alive(); !alive {
		return nil
	}
	return syscall.Kill(n.PID, sig)
}

// waitGone waits until the node's process has exited.
func (n nodeState) waitGone(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if alive, _ := n.alive(); !alive {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// javaPIDsUnder finds processes whose command line mentions dir: the JVMs
// of a cluster, whoever started them.
func javaPIDsUnder(dir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		if strings.Contains(string(cmdline), dir+"/") {
			if st, _, ok := procInfo(pid); ok && st != 'Z' {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
