package kubernetes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
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
		return &relayConn{Conn: mine, addr: relayAddr(addr), cancel: cancel, done: done, closed: make(chan struct{})}, nil
	case err := <-done:
		cancel()
		mine.Close()
		kind, msg := errs.dialError()
		if msg == "" && err != nil {
			msg = err.Error()
		}
		return nil, fmt.Errorf("kubernetes: from the client pod %s: %w", c.pod, dialError(addr, kind, msg))
	case <-ctx.Done():
		cancel()
		mine.Close()
		return nil, fmt.Errorf("kubernetes: from the client pod %s: %w", c.pod, &net.OpError{Op: "dial", Net: "tcp", Addr: relayAddr(addr), Err: timeoutError{ctx.Err()}})
	}
}

// dialError is the error a dial of this machine's would have returned for
// a relay's failure of the given kind (relay.DialError): a net.OpError
// around a system call's error number, a timeout or a DNS error, which
// franz-go tells apart (it retries a refused dial, not an unknown host).
// A failure of the exec itself is an error of its own.
func dialError(addr, kind, msg string) error {
	host, _, _ := net.SplitHostPort(addr)
	op := &net.OpError{Op: "dial", Net: "tcp", Addr: relayAddr(addr)}
	var errno int
	switch _, scanErr := fmt.Sscanf(kind, "errno %d", &errno); {
	case scanErr == nil:
		op.Err = os.NewSyscallError("connect", syscall.Errno(errno))
	case kind == "timeout":
		op.Err = timeoutError{errors.New(msg)}
	case kind == "notfound":
		op.Err = &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	case kind == "dns":
		op.Err = &net.DNSError{Err: msg, Name: host}
	case kind == "other":
		op.Err = errors.New(msg)
	default:
		return fmt.Errorf("dial %s: the relay did not run: %s", addr, msg)
	}
	return op
}

// timeoutError is a dial's timeout, as net.Error says one.
type timeoutError struct{ err error }

func (t timeoutError) Error() string   { return "i/o timeout: " + t.err.Error() }
func (t timeoutError) Unwrap() error   { return t.err }
func (t timeoutError) Timeout() bool   { return true }
func (t timeoutError) Temporary() bool { return true }

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

// dialError is the kind and message of the relay's failed dial ("" kind
// when the relay said none: it did not run).
func (r *relayStderr) dialError() (kind, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	text := strings.TrimSpace(r.buf.String())
	i := strings.Index(text, relay.DialError)
	if i < 0 {
		return "", text
	}
	kind, msg, _ = strings.Cut(text[i+len(relay.DialError):], "\n")
	return kind, strings.TrimSpace(msg)
}

// relayConn is a connection relayed from the client pod.
type relayConn struct {
	net.Conn
	addr   relayAddr
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
	closed chan struct{} // closed by Close
}

// Close closes the connection: the relay sees its standard input end and
// exits; the exec is cut if it has not ended a few seconds later.
func (r *relayConn) Close() error {
	first := false
	r.once.Do(func() { close(r.closed); first = true })
	err := r.Conn.Close()
	if first {
		go func() {
			select {
			case <-r.done:
			case <-time.After(5 * time.Second):
			}
			r.cancel()
		}()
	}
	return err
}

func (r *relayConn) RemoteAddr() net.Addr { return r.addr }

// Read and Write end as a TCP connection's would: a read after the relay
// ended (the broker closed the connection, or its pod died) is io.EOF, a
// write then is a reset connection (which franz-go retries, and an
// in-memory pipe's closed-pipe error it would not); on a connection
// closed here both are net.ErrClosed.
func (r *relayConn) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	return n, r.netErr("read", err)
}

func (r *relayConn) Write(p []byte) (int, error) {
	n, err := r.Conn.Write(p)
	return n, r.netErr("write", err)
}

func (r *relayConn) netErr(op string, err error) error {
	if !errors.Is(err, io.ErrClosedPipe) {
		return err
	}
	select {
	case <-r.closed:
		return &net.OpError{Op: op, Net: "tcp", Addr: r.addr, Err: net.ErrClosed}
	default:
		return &net.OpError{Op: op, Net: "tcp", Addr: r.addr, Err: os.NewSyscallError(op, syscall.ECONNRESET)}
	}
}

// relayAddr is the address a relayed connection was dialled to.
type relayAddr string

func (a relayAddr) Network() string { return "tcp" }
func (a relayAddr) String() string  { return string(a) }
