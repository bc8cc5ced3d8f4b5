package kubernetes

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
)

// TestDialError gives franz-go the shapes of error a dial of its own
// gives: it retries a refused or timed-out dial and not an unknown host.
func TestDialError(t *testing.T) {
	var ne net.Error
	err := dialError("k1.svc:9092", "errno 111", "dial tcp 10.0.0.1:9092: connect: connection refused")
	if op, ok := errors.AsType[*net.OpError](err); !ok || op.Op != "dial" || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("refused: %#v", err)
	}
	if err := dialError("k1.svc:9092", "timeout", "i/o timeout"); !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("timeout: %#v", err)
	}
	if dns, ok := errors.AsType[*net.DNSError](dialError("k1.svc:9092", "notfound", "no such host")); !ok || !dns.IsNotFound || dns.Name != "k1.svc" {
		t.Errorf("unknown host: %#v", dns)
	}
	if _, ok := errors.AsType[*net.OpError](dialError("k1.svc:9092", "", "exec failed")); ok {
		t.Error("a relay that did not run passed for a dial's failure")
	}
}

// TestRelayConnEnds reads EOF and writes a reset once the relay's side
// ended, and net.ErrClosed once closed here.
func TestRelayConnEnds(t *testing.T) {
	mine, theirs := net.Pipe()
	c := &relayConn{Conn: mine, addr: "k1:9092", cancel: func() {}, done: make(chan error, 1), closed: make(chan struct{})}
	theirs.Close()
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("read after the relay ended: %v, want EOF", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("write after the relay ended: %v, want ECONNRESET", err)
	}
	c.Close()
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after Close: %v, want net.ErrClosed", err)
	}
}
