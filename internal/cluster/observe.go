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

// connectTimeout bounds a probe of a node's port: a port of a node cut
// off from the network does not refuse, it does not answer.
const connectTimeout = 500 * time.Millisecond

// Reach probes addr with a TCP connection from this machine and says
// what happened: "answered", "refused", or the error.
func Reach(ctx context.Context, addr string) (answered bool, said string) {
	d := net.Dialer{Timeout: connectTimeout}
	start := time.Now()
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false, fmt.Sprintf("a connection from this machine to %s failed after %v: %v", addr, time.Since(start).Round(time.Millisecond), err)
	}
	c.Close()
	return true, fmt.Sprintf("a connection from this machine to %s was answered in %v", addr, time.Since(start).Round(time.Millisecond))
}
