package cluster

import (
	"context"
	"fmt"
	"net"
	"time"
)

// Observer is implemented by backends that can read what a node op left
// from the node itself, not from their own record of what they did: the
// process table (a JVM gone, or stopped by SIGSTOP), a connection to the
// node's broker port (refused, or answered). A fault proves it landed
// only by such a reading; a step whose op no reading confirms says so in
// the evidence, and its run is not a test of that fault.
type Observer interface {
	// Observe says, in words, what each node shows of op, which was just
	// applied to it; landed is false when a node shows none of it.
	Observe(ctx context.Context, op Op, nodes []string) (said string, landed bool, err error)
}

// The probes of a node's port: a port cut off from the network does not
// refuse, it does not answer, so a probe that expects no answer waits
// CutProbe (a handshake on a host's own bridge takes well under a
// millisecond) and one that expects an answer up to AnswerProbe, which it
// spends only when the node is slow. The step that probes waits as long,
// so the wait for no answer is kept short.
const (
	CutProbe    = 250 * time.Millisecond
	AnswerProbe = 2 * time.Second
)

// Reach probes addr with a TCP connection from this machine, waiting up
// to timeout, and says what happened: answered, or the error.
func Reach(ctx context.Context, addr string, timeout time.Duration) (answered bool, said string) {
	d := net.Dialer{Timeout: timeout}
	start := time.Now()
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false, fmt.Sprintf("a connection from this machine to %s failed after %v: %v", addr, time.Since(start).Round(time.Millisecond), err)
	}
	c.Close()
	return true, fmt.Sprintf("a connection from this machine to %s was answered in %v", addr, time.Since(start).Round(time.Millisecond))
}

// ProcessShows says what op left a node's broker process as a process
// table shows it (gone, or there in a state: stopped when SIGSTOP froze
// it), and whether that confirms op; proc names the process ("pid 42").
// The backends that read a process table (local: /proc on this machine;
// kubernetes: /proc in the pod) share it. An op that is no process's
// says nothing and is not denied.
func ProcessShows(op Op, proc string, gone, stopped bool, state string) (said string, landed bool) {
	switch op {
	case Kill, Stop:
		if gone {
			return proc + " is gone", true
		}
		return fmt.Sprintf("%s is still there (state %s)", proc, state), false
	case Start, Resume:
		if gone {
			return proc + " is gone", false
		}
		return fmt.Sprintf("%s runs (state %s)", proc, state), !stopped
	case Pause:
		if gone {
			return proc + " is gone", false
		}
		if !stopped {
			return fmt.Sprintf("%s is not stopped (state %s)", proc, state), false
		}
		return fmt.Sprintf("%s is stopped (state %s)", proc, state), true
	}
	return "", true
}
