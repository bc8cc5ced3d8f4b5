package kubernetes

import (
	"bytes"
	"context"
	"errors"
	"io"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/relay"
)

// dial opens a TCP connection to addr from the client pod: it execs this
// kafkabook binary's relay there and returns the exec's standard streams
// as a net.Conn once the relay says it is connected. The connection meets
// what a pod's connection meets: the brokers' in-cluster names, and the
// network faults of the pod and of the broker's pod. Closing it ends the
// relay (its standard input closes).
func (c *clients) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, fmt.Errorf("kubernetes: dial %s %s: the client pod's relay dials TCP only", network, addr)
	}
	if err := c.prepare(ctx); err != nil {
		return nil, err
	}
	mine, theirs := net.Pipe()
	// The exec outlives the dial's context: it ends when the connection
	// is closed.
	sctx, cancel := context.WithCancel(context.Background())
	errs := &relayStderr{connected: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		err := c.api.stream(sctx, c.pod, c.container, []string{c.exe, relay.Subcommand, addr}, quietReader{theirs}, quietWriter{theirs}, errs)
		theirs.Close() // after everything the relay wrote was read
		done <- err
	}()
	select {
	case <-errs.connected:
		return &relayConn{Conn: mine, addr: relayAddr(addr), cancel: cancel, done: done}, nil
	case err := <-done:
		cancel()
		mine.Close()
		msg := strings.TrimSpace(errs.text())
		if msg == "" && err != nil {
			msg = err.Error()
		}
		return nil, fmt.Errorf("kubernetes: dial %s from the client pod %s: %s", addr, c.pod, msg)
	case <-ctx.Done():
		cancel()
		mine.Close()
		return nil, fmt.Errorf("kubernetes: dial %s from the client pod %s: %w", addr, c.pod, ctx.Err())
	}
}

// quietReader ends with io.EOF where its pipe was closed under it: the
// exec's copy of standard input logs any other end as an error, and a
// closed connection is no error.
type quietReader struct{ r io.Reader }

func (q quietReader) Read(p []byte) (int, error) {
	n, err := q.r.Read(p)
	if errors.Is(err, io.ErrClosedPipe) {
		err = io.EOF
	}
	return n, err
}

// quietWriter discards what is written after its pipe was closed (the
// connection was closed with data on the way), for the same reason.
type quietWriter struct{ w io.Writer }

func (q quietWriter) Write(p []byte) (int, error) {
	n, err := q.w.Write(p)
	if errors.Is(err, io.ErrClosedPipe) {
		return len(p), nil
	}
	return n, err
}

// relayStderr is the relay's standard error: it closes connected at
// relay.Connected and keeps the rest for messages.
type relayStderr struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	connected chan struct{}
	seen      bool
}

func (r *relayStderr) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf.Write(p)
	if !r.seen && bytes.Contains(r.buf.Bytes(), []byte(relay.Connected+"\n")) {
		r.seen = true
		r.buf.Reset()
		close(r.connected)
	}
	if r.buf.Len() > 4096 {
		r.buf.Next(r.buf.Len() - 4096)
	}
	return len(p), nil
}

func (r *relayStderr) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.String()
}

// relayConn is a connection relayed from the client pod.
type relayConn struct {
	net.Conn
	addr   relayAddr
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// Close closes the connection: the relay sees its standard input end and
// exits; the exec is cut if it has not ended a few seconds later.
func (r *relayConn) Close() error {
	err := r.Conn.Close()
	r.once.Do(func() {
		go func() {
			select {
			case <-r.done:
			case <-time.After(5 * time.Second):
			}
			r.cancel()
		}()
	})
	return err
}

func (r *relayConn) RemoteAddr() net.Addr { return r.addr }

// relayAddr is the address a relayed connection was dialled to.
type relayAddr string

func (a relayAddr) Network() string { return "tcp" }
func (a relayAddr) String() string  { return string(a) }
