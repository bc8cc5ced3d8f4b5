package cluster

import (
	"context"
	"net"
	"os"
)

// Access says how a client reaches a cluster's brokers when a plain TCP
// connection from this machine to each node's Address does not: a
// cluster in Kubernetes answers at names only its pods resolve, and a
// cluster kafkabook did not start may ask for TLS and SASL. The zero
// Access is a plain TCP connection.
type Access struct {
	// Dial opens a connection to a broker address; nil dials directly.
	// The Kubernetes backend opens it from a pod of the cluster's network,
	// so that the connection meets the network faults a client there meets.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error) `json:"-"`
	// TLS, when set, wraps every connection in TLS.
	TLS *TLS `json:"tls,omitempty"`
	// SASL, when set, authenticates every connection.
	SASL *SASL `json:"sasl,omitempty"`
}

// TLS is the trust a client needs for a TLS listener.
type TLS struct {
	// CAFile is a PEM file of the certificates that signed the brokers'
	// certificates; empty trusts the system's roots.
	CAFile string `json:"ca_file,omitempty"`
	// ServerName overrides the name checked against each broker's
	// certificate; empty checks the host of the address dialled.
	ServerName string `json:"server_name,omitempty"`
}

// SASL is a client's SASL identity. The password is a secret: it is never
// written to evidence, logs or a runbook (see the external backend's
// cluster file, which reads it from the environment or a file), nor to
// JSON: a process that gets an Access as JSON gets the password another
// way (PasswordEnv).
type SASL struct {
	Mechanism string `json:"mechanism"` // PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
	User      string `json:"user"`
	Password  string `json:"-"`
}

// PasswordEnv is the environment variable a client process kafkabook
// starts (a consumer member, franz-go's driver) reads its SASL password
// from: the spec on its command line or stdin carries none.
const PasswordEnv = "KAFKABOOK_SASL_PASSWORD"

// Environ is the environment of a client process that reaches the brokers
// as a says: this process's, with PasswordEnv when a has a SASL password.
func Environ(a Access) []string {
	env := os.Environ()
	if a.SASL != nil {
		env = append(env, PasswordEnv+"="+a.SASL.Password)
	}
	return env
}

// PasswordFromEnv gives a's SASL identity, received without its password,
// the password from PasswordEnv: the side of Environ in the started
// process.
func (a *Access) PasswordFromEnv() {
	if a.SASL != nil {
		a.SASL.Password = os.Getenv(PasswordEnv)
	}
}

// Secrets are the strings of a that must not appear in anything kafkabook
// writes: the SASL password.
func (a Access) Secrets() []string {
	if a.SASL != nil && a.SASL.Password != "" {
		return []string{a.SASL.Password}
	}
	return nil
}

// Accessor is implemented by backends whose brokers a client reaches
// other than by a plain TCP connection from this machine.
type Accessor interface {
	Access(ctx context.Context) (Access, error)
}

// AccessOf is how to reach b's brokers: the zero Access unless b is an
// Accessor.
func AccessOf(ctx context.Context, b Backend) (Access, error) {
	if a, ok := b.(Accessor); ok {
		return a.Access(ctx)
	}
	return Access{}, nil
}
