package local

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/nsexec"
)

// reachTimeout bounds the reachability check; a dropped SYN takes all of it.
const reachTimeout = 3 * time.Second

// checkReach makes sure, before any JVM starts, that every node can open a
// TCP connection to every other node's controller port and the host to
// every node's broker port: it listens on those ports inside each node's
// namespace and dials them. When a path is blocked it names the cause when
// the host shows one (bridge netfilter with a dropping FORWARD chain, as
// dockerd leaves it), instead of a JVM dying later with a stack trace.
func (st state) checkReach(ctx context.Context) error {
	listeners, err := st.listenAll()
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	if err != nil {
		return err
	}
	paths := st.reachPaths()
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Go(func() { errs[i] = p.dial(ctx) })
	}
	wg.Wait()
	var failed []string
	for _, err := range errs {
		if err != nil {
			failed = append(failed, "  "+err.Error())
		}
	}
	if len(failed) == 0 {
		return nil
	}
	cause := filterCause(st.Network.Bridge)
	if cause == "" {
		cause = "nothing on this host explains it: bridge netfilter is off (net.bridge.bridge-nf-call-iptables is not 1)"
	}
	return fmt.Errorf("the cluster's nodes cannot reach each other over bridge %s; checked before starting Kafka:\n%s\ncause: %s",
		st.Network.Bridge, strings.Join(failed, "\n"), cause)
}

// listenAll listens on every node's controller and broker ports inside
// its namespace, accepting and closing every connection, and returns the
// listeners, also those opened before an error.
func (st state) listenAll() ([]net.Listener, error) {
	var listeners []net.Listener
	for _, n := range st.Nodes {
		for _, port := range []int{controllerPort, brokerPort} {
			addr := fmt.Sprintf("%s:%d", st.Network.nodeIP(n.ID), port)
			var l net.Listener
			err := nsexec.Do(n.NS, func() (err error) {
				l, err = net.Listen("tcp4", addr)
				return err
			})
			if err != nil {
				return listeners, fmt.Errorf("%s: reachability check: listen on %s: %w", n.Name, addr, err)
			}
			listeners = append(listeners, l)
			go func() {
				for {
					c, err := l.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
		}
	}
	return listeners, nil
}

// reachPath is one connection the cluster needs: from a namespace ("" for
// the host's) to an address.
type reachPath struct{ from, fromNS, to, addr string }

// reachPaths lists the connections the cluster needs: the host to every
// broker port, every node to every other node's controller port.
func (st state) reachPaths() []reachPath {
	var paths []reachPath
	for _, to := range st.Nodes {
		paths = append(paths, reachPath{from: "the host (" + st.Network.ip(1).String() + ")", to: to.Name,
			addr: fmt.Sprintf("%s:%d", st.Network.nodeIP(to.ID), brokerPort)})
		for _, from := range st.Nodes {
			if from.ID != to.ID {
				paths = append(paths, reachPath{
					from: fmt.Sprintf("%s (%s)", from.Name, st.Network.nodeIP(from.ID)), fromNS: from.NS, to: to.Name,
					addr: fmt.Sprintf("%s:%d", st.Network.nodeIP(to.ID), controllerPort)})
			}
		}
	}
	return paths
}

// dial connects along the path every 100 ms until it succeeds or ctx is
// done; then it names the path and the last error.
func (p reachPath) dial(ctx context.Context) error {
	for {
		last := dialFrom(ctx, p.fromNS, p.addr)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s cannot reach %s at %s: %v", p.from, p.to, p.addr, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// dialFrom opens and closes a TCP connection to addr from network namespace
// ns ("" for the host's).
func dialFrom(ctx context.Context, ns, addr string) error {
	var d net.Dialer
	dial := func() error {
		c, err := d.DialContext(ctx, "tcp4", addr)
		if err == nil {
			c.Close()
		}
		return err
	}
	if ns == "" {
		return dial()
	}
	return nsexec.Do(ns, dial)
}
