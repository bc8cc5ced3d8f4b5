package driver

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
	"github.com/kafkabook/kafkabook/internal/cluster"
)

// SecurityProperties are the client properties, by client's own names,
// that make a driver's client reach brokers as a says: the protocol, the
// TLS trust (a PEM file) and the SASL identity. They travel in the spec on
// the driver's stdin, never on its command line; the password among them
// is a secret (see Hidden). The zero Access needs none.
func SecurityProperties(client string, a cluster.Access) map[string]string {
	protocol := ""
	switch {
	case a.TLS != nil && a.SASL != nil:
		protocol = "SASL_SSL"
	case a.TLS != nil:
		protocol = "SSL"
	case a.SASL != nil:
		protocol = "SASL_PLAINTEXT"
	default:
		return nil
	}
	props := map[string]string{"security.protocol": protocol}
	if client == "librdkafka" {
		if a.TLS != nil && a.TLS.CAFile != "" {
			props["ssl.ca.location"] = a.TLS.CAFile
		}
		if a.SASL != nil {
			props["sasl.mechanisms"] = a.SASL.Mechanism
			props["sasl.username"] = a.SASL.User
			props["sasl.password"] = a.SASL.Password
		}
		return props
	}
	// java and spring: kafka-clients' names.
	if a.TLS != nil && a.TLS.CAFile != "" {
		props["ssl.truststore.type"] = "PEM"
		props["ssl.truststore.location"] = a.TLS.CAFile
	}
	if a.SASL != nil {
		module := "org.apache.kafka.common.security.scram.ScramLoginModule"
		if a.SASL.Mechanism == "PLAIN" {
			module = "org.apache.kafka.common.security.plain.PlainLoginModule"
		}
		props["sasl.mechanism"] = a.SASL.Mechanism
		props["sasl.jaas.config"] = module + " required username=" + jaasQuote(a.SASL.User) + " password=" + jaasQuote(a.SASL.Password) + ";"
	}
	return props
}

// jaasQuote quotes a JAAS option value.
func jaasQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// Hidden is what a secret property's value reads as in the evidence and
// on the console.
const Hidden = "[hidden]"

// Secret reports whether a client property holds a secret: a password,
// a JAAS configuration (which carries one), a private key.
func Secret(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "password") || strings.Contains(n, "jaas") ||
		strings.Contains(n, "secret") || strings.HasSuffix(n, ".key") || strings.Contains(n, "key.pem")
}

// Redacted is the startup with every secret property's value Hidden.
func (s Startup) Redacted() Startup {
	config := make(map[string]string, len(s.Config))
	for k, v := range s.Config {
		if Secret(k) && v != "" {
			v = Hidden
		}
		config[k] = v
	}
	s.Config = config
	return s
}

// Refuse refuses, as check does, a property a runbook may not set
// (clientconfig.Refused) among props, the runbook's properties for a
// driver's client in role: check stops such a runbook before it runs, this
// is the last point before the spec goes out, and the driver refuses the
// same set once more at start (its own copy of the rule, held to this one
// by the drivers' unit tests: refusalCases). The cluster's access travels apart from
// props, in the spec's "access" (SecurityProperties), which the driver
// applies last, so the cluster file's credentials are never sent another
// way than the file says.
func Refuse(client string, role clientconfig.Role, props map[string]string) error {
	catalogue := client
	if client == "spring" {
		catalogue = clientconfig.Java // Spring Kafka passes them to kafka-clients
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, _ := clientconfig.Lookup(catalogue, "", role, name)
		if why := clientconfig.Refused(p, name, props[name]); why != "" {
			return fmt.Errorf("the %s client may not be given %s: it %s", client, name, why)
		}
	}
	return nil
}
