// Package kafka is kafkabook's client side of a cluster, on franz-go: the
// produce ledger, fresh leader/ISR metadata, reading a topic to its high
// watermark, and creating topics. It knows addresses, not nodes.
package kafka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Brokers is how to reach a cluster: the addresses to bootstrap from and
// how to open a connection to any broker (see cluster.Access).
type Brokers struct {
	Seeds  []string
	Access cluster.Access
}

// Plain is the brokers at seeds, reached by plain TCP.
func Plain(seeds ...string) Brokers { return Brokers{Seeds: seeds} }

// Via is the same cluster bootstrapped from other addresses only.
func (b Brokers) Via(seeds ...string) Brokers { return Brokers{Seeds: seeds, Access: b.Access} }

// Client is an admin and metadata connection to a cluster.
type Client struct {
	cl *kgo.Client
}

// dialTimeout bounds a TCP connect, handshakeTimeout a connect with its
// TLS handshake.
const (
	dialTimeout      = time.Second
	handshakeTimeout = 3 * time.Second
)

// observerOpts are the options of kafkabook's own clients, the observers
// (admin, samplers, reads, the final read): they keep a client responsive
// when brokers die or vanish from the network, with short dial and request
// timeouts and fresh metadata, so it moves on to another broker instead of
// hanging on a dead one. A client under test never gets them (subjectOpts).
// They carry b's access.
func observerOpts(b Brokers) []kgo.Opt {
	return append([]kgo.Opt{
		kgo.DialTimeout(dialTimeout),
		kgo.RequestTimeoutOverhead(3 * time.Second),
		kgo.MetadataMinAge(100 * time.Millisecond),
		kgo.MetadataMaxAge(2 * time.Second),
		kgo.RetryBackoffFn(func(int) time.Duration { return 100 * time.Millisecond }),
	}, withAccess(b, false)...)
}

// subjectOpts are all kafkabook sets on a client under test (franz-go's
// producer, group and transform members): where the cluster is and how to
// reach it (b's seeds, TLS and SASL). Everything else is franz-go's
// default or the runbook's, so that a finding is about franz-go as its
// users run it.
func subjectOpts(b Brokers) []kgo.Opt { return withAccess(b, true) }

// withAccess are the seeds and access options of a client: an observer's
// or, with subject, a client under test's, which dials TLS as franz-go
// does (kgo.DialTLSConfig) unless the cluster is reached through a relay.
func withAccess(b Brokers, subject bool) []kgo.Opt {
	opts := []kgo.Opt{kgo.SeedBrokers(b.Seeds...)}
	access, err := accessOpts(b.Access, subject)
	if err != nil {
		// A CA file that cannot be read fails every connection with the
		// reason, rather than being dropped silently.
		return append(opts, kgo.Dialer(func(ctx context.Context, network, host string) (net.Conn, error) { return nil, err }))
	}
	return append(opts, access...)
}

// accessOpts are the franz-go options for a cluster.Access. An observer
// bounds its dial and TLS handshake itself; a subject (a client under
// test) reached directly dials TLS with franz-go's own dialer and its
// defaults, as its users' clients do.
func accessOpts(a cluster.Access, subject bool) ([]kgo.Opt, error) {
	var opts []kgo.Opt
	dial := a.Dial
	if a.TLS != nil {
		cfg, err := tlsConfig(*a.TLS)
		if err != nil {
			return nil, err
		}
		if subject && dial == nil {
			return withSASL(a, kgo.DialTLSConfig(cfg))
		}
		inner := dial
		if inner == nil {
			d := &net.Dialer{Timeout: dialTimeout}
			inner = d.DialContext
		}
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			// franz-go bounds only its own dialer: a broker that is
			// paused accepts the TCP connection (its kernel does) and
			// never answers the handshake, which must not hold up the
			// client until its requests time out.
			ctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
			defer cancel()
			c, err := inner(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			cfg := cfg.Clone()
			if cfg.ServerName == "" {
				if host, _, err := net.SplitHostPort(addr); err == nil {
					cfg.ServerName = host
				}
			}
			tc := tls.Client(c, cfg)
			if err := tc.HandshakeContext(ctx); err != nil {
				c.Close()
				return nil, fmt.Errorf("TLS handshake with %s: %w", addr, err)
			}
			return tc, nil
		}
	}
	if dial != nil {
		opts = append(opts, kgo.Dialer(dial))
	}
	return withSASL(a, opts...)
}

// withSASL adds a's SASL login, if any, to opts.
func withSASL(a cluster.Access, opts ...kgo.Opt) ([]kgo.Opt, error) {
	if a.SASL != nil {
		m, err := saslMechanism(*a.SASL)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

// tlsConfig trusts the CA file, or the system's roots without one.
func tlsConfig(t cluster.TLS) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read the TLS trust (CA file): %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS trust %s holds no PEM certificate", t.CAFile)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// saslMechanism is franz-go's mechanism for a SASL identity.
func saslMechanism(s cluster.SASL) (sasl.Mechanism, error) {
	switch s.Mechanism {
	case "PLAIN":
		return plain.Auth{User: s.User, Pass: s.Password}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: s.User, Pass: s.Password}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		return scram.Auth{User: s.User, Pass: s.Password}.AsSha512Mechanism(), nil
	}
	return nil, fmt.Errorf("SASL mechanism %q: want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", s.Mechanism)
}

// Dial connects lazily to the cluster.
func Dial(b Brokers) (*Client, error) {
	cl, err := kgo.NewClient(observerOpts(b)...)
	if err != nil {
		return nil, err
	}
	return &Client{cl: cl}, nil
}

// Close closes the connections.
func (c *Client) Close() { c.cl.Close() }

// FranzGoVersion is the franz-go release this binary was built with, for
// provenance and franz-go's driver; "" when the build does not say (a test
// binary).
func FranzGoVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/twmb/franz-go" {
			return d.Version
		}
	}
	return ""
}
