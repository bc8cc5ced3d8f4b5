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

// baseOpts keep a client responsive when brokers die or vanish from the
// network: short dial and request timeouts, so it moves on to another
// broker instead of hanging on a dead one. They carry b's access.
func baseOpts(b Brokers) []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(b.Seeds...),
		kgo.DialTimeout(dialTimeout),
		kgo.RequestTimeoutOverhead(3 * time.Second),
		kgo.MetadataMinAge(100 * time.Millisecond),
		kgo.MetadataMaxAge(2 * time.Second),
		kgo.RetryBackoffFn(func(int) time.Duration { return 100 * time.Millisecond }),
	}
	access, err := accessOpts(b.Access)
	if err != nil {
		// A CA file that cannot be read fails every connection with the
		// reason, rather than being dropped silently.
		return append(opts, kgo.Dialer(func(ctx context.Context, network, host string) (net.Conn, error) { return nil, err }))
	}
	return append(opts, access...)
}

// accessOpts are the franz-go options for a cluster.Access.
func accessOpts(a cluster.Access) ([]kgo.Opt, error) {
	var opts []kgo.Opt
	dial := a.Dial
	if a.TLS != nil {
		cfg, err := tlsConfig(*a.TLS)
		if err != nil {
			return nil, err
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
	cl, err := kgo.NewClient(baseOpts(b)...)
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
