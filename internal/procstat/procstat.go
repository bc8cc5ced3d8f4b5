// Package procstat reads what /proc/PID/stat says of a process on this
// machine (or, from its stat line, in a pod): its state letter and its
// start time. The state tells a frozen
// (SIGSTOP) or dead process from a running one; the start time tells a
// process from a later one that reuses its pid.
package procstat

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Stat is one reading of /proc/PID/stat.
type Stat struct {
	State byte   // R, S, D, T (stopped), t, Z (zombie), X...
	Start uint64 // clock ticks after boot when the process started
}

// Read reads pid's stat. Its error wraps fs.ErrNotExist once the process
// is gone.
func Read(pid int) (Stat, error) {
	if pid <= 0 {
		return Stat{}, fmt.Errorf("no process %d", pid)
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	_, _, st, err := Parse(string(data))
	if err != nil {
		return Stat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return st, nil
}

// Parse reads one /proc/PID/stat line: the pid, the command name and the
// state and start time, also of a process elsewhere (a pod's, read there
// by a shell).
func Parse(line string) (pid int, comm string, st Stat, err error) {
	// The command name may hold spaces and parentheses: the fields
	// start after the last ')'.
	open, end := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || end < open {
		return 0, "", Stat{}, fmt.Errorf("unreadable stat %q", line)
	}
	if pid, err = strconv.Atoi(strings.TrimSpace(line[:open])); err != nil {
		return 0, "", Stat{}, fmt.Errorf("unreadable stat %q", line)
	}
	f := strings.Fields(line[end+1:])
	if len(f) < 20 {
		return 0, "", Stat{}, fmt.Errorf("unreadable stat %q", line)
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, "", Stat{}, fmt.Errorf("start time %q: %w", f[19], err)
	}
	return pid, line[open+1 : end], Stat{State: f[0][0], Start: start}, nil
}

// Stopped reports whether the state is a stop (SIGSTOP, or a tracer's).
func (s Stat) Stopped() bool { return s.State == 'T' || s.State == 't' }

// Dead reports whether the process has ended (a zombie not yet reaped
// counts as ended).
func (s Stat) Dead() bool { return s.State == 'Z' || s.State == 'X' }

// Proc names a process by pid and start time, so that a later process
// that gets its pid is not taken for it: what a cluster records of the
// kafkabook that started it.
type Proc struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"` // Stat.Start; 0 when not known
}

// Self is this process.
func Self() Proc {
	pid := os.Getpid()
	st, _ := Read(pid)
	return Proc{PID: pid, Start: st.Start}
}

// Alive reports whether the process still runs (a zombie does not): its
// pid runs, and started at Start (any start, when Start is 0).
func (p Proc) Alive() bool {
	st, err := Read(p.PID)
	return err == nil && !st.Dead() && (p.Start == 0 || st.Start == p.Start)
}

// IsSelf reports whether the process is this one.
func (p Proc) IsSelf() bool { return p.PID == os.Getpid() && p.Alive() }

// Running reports whether pid is a live process (not a zombie).
func Running(pid int) bool {
	st, err := Read(pid)
	return err == nil && !st.Dead()
}

// WaitGone waits up to timeout until none of pids runs, looking every
// 50 ms.
func WaitGone(ctx context.Context, pids []int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var left []string
		for _, pid := range pids {
			if Running(pid) {
				left = append(left, strconv.Itoa(pid))
			}
		}
		switch {
		case len(left) == 0:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case time.Now().After(deadline):
			return fmt.Errorf("timed out after %s: pids %s still running", timeout, strings.Join(left, ", "))
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}
