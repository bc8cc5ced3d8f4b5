package local

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"gopkg.in/yaml.v3"
)

// With cluster.SecuritySASLSSL every node has a third listener for
// clients, SECURE on securePort: TLS with a certificate the cluster's own
// CA signed, and SASL/SCRAM-SHA-512 for the user AdminUser, created when
// the storage is formatted. Replication and the controllers stay on their
// PLAINTEXT listeners: the point is to exercise clients that authenticate,
// not to secure a test cluster.
const (
	securePort = 9095
	// AdminUser is the SCRAM user kafkabook's clients log in as.
	AdminUser = "kafkabook"
	// scramMechanism is the one mechanism the SECURE listener enables.
	scramMechanism = "SCRAM-SHA-512"
)

// Files of a secure cluster, in its directory: the CA certificate clients
// trust, the admin password (readable by its owner only) and a cluster
// file for the external backend (see WriteClusterFile).
const (
	caFile       = "ca.pem"
	passwordFile = "admin.password"
	// ClusterFileName is the external cluster file `cluster up --security`
	// writes into the cluster's directory.
	ClusterFileName = "cluster-file.yaml"
)

func (st state) secure() bool { return st.Security == cluster.SecuritySASLSSL }

// clientPort is the port clients connect to.
func (st state) clientPort() int {
	if st.secure() {
		return securePort
	}
	return brokerPort
}

// makeSecrets writes the CA, each node's PEM keystore (its key and its
// certificate) and the admin password, before the nodes are formatted.
func (b *Backend) makeSecrets(st state) error {
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "kafkabook cluster " + st.Name + " CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(1, 0, 0),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(b.dir, caFile), caPEM, 0o644); err != nil {
		return err
	}
	for _, n := range st.Nodes {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return err
		}
		tmpl := &x509.Certificate{
			SerialNumber: serial(),
			Subject:      pkix.Name{CommonName: n.Name},
			DNSNames:     []string{n.Name},
			IPAddresses:  []net.IP{st.Network.nodeIP(n.ID)},
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.AddDate(1, 0, 0),
			KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
			ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return err
		}
		pk, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return err
		}
		// Kafka's PEM keystore: an unencrypted PKCS#8 key, then the chain.
		ks := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk})
		ks = append(ks, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
		ks = append(ks, caPEM...)
		if err := os.MkdirAll(n.Dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(keystore(n), ks, 0o600); err != nil {
			return err
		}
	}
	pw := make([]byte, 18)
	rand.Read(pw)
	return os.WriteFile(filepath.Join(b.dir, passwordFile), []byte(base64.RawURLEncoding.EncodeToString(pw)+"\n"), 0o600)
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return n
}

func keystore(n nodeState) string { return filepath.Join(n.Dir, "keystore.pem") }

// password is the admin user's password.
func (b *Backend) password() (string, error) {
	data, err := os.ReadFile(filepath.Join(b.dir, passwordFile))
	if err != nil {
		return "", fmt.Errorf("cluster %s: reading the admin password: %w", b.name, err)
	}
	return strings.TrimSpace(string(data)), nil
}

// secureProperties are the server.properties of the SECURE listener.
func (st state) secureProperties(n nodeState, props map[string]string) {
	ip := st.Network.nodeIP(n.ID)
	props["listeners"] += fmt.Sprintf(",SECURE://%s:%d", ip, securePort)
	props["advertised.listeners"] += fmt.Sprintf(",SECURE://%s:%d", ip, securePort)
	props["listener.security.protocol.map"] += ",SECURE:SASL_SSL"
	props["listener.name.secure.sasl.enabled.mechanisms"] = scramMechanism
	props["listener.name.secure.scram-sha-512.sasl.jaas.config"] = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
	props["listener.name.secure.ssl.keystore.type"] = "PEM"
	props["listener.name.secure.ssl.keystore.location"] = keystore(n)
}

// scramArgs are the storage tool's arguments that create the admin user.
func (b *Backend) scramArgs(st state) ([]string, error) {
	if !st.secure() {
		return nil, nil
	}
	pw, err := b.password()
	if err != nil {
		return nil, err
	}
	return []string{"--add-scram", fmt.Sprintf("%s=[name=%s,password=%s]", scramMechanism, AdminUser, pw)}, nil
}

// Access is how kafkabook's clients reach a secure cluster: the CA and
// the admin user; a plain TCP connection otherwise.
func (b *Backend) Access(ctx context.Context) (cluster.Access, error) {
	st, ok, err := b.load()
	if err != nil || !ok {
		return cluster.Access{}, err
	}
	return b.access(st)
}

func (b *Backend) access(st state) (cluster.Access, error) {
	if !st.secure() {
		return cluster.Access{}, nil
	}
	pw, err := b.password()
	if err != nil {
		return cluster.Access{}, err
	}
	return cluster.Access{
		TLS:  &cluster.TLS{CAFile: filepath.Join(b.dir, caFile)},
		SASL: &cluster.SASL{Mechanism: scramMechanism, User: AdminUser, Password: pw},
	}, nil
}

// clusterFile is the external backend's cluster file for a secure local
// cluster (internal/cluster/external reads it; the types are not shared
// so that this package does not import that one).
type clusterFile struct {
	Name  string `yaml:"name"`
	Kafka string `yaml:"kafka"`
	Nodes []struct {
		Name    string `yaml:"name"`
		ID      int    `yaml:"id"`
		Address string `yaml:"address"`
	} `yaml:"nodes"`
	TLS struct {
		CAFile string `yaml:"ca_file"`
	} `yaml:"tls"`
	SASL struct {
		Mechanism    string `yaml:"mechanism"`
		User         string `yaml:"user"`
		PasswordFile string `yaml:"password_file"`
	} `yaml:"sasl"`
	Faults map[string][]string `yaml:"faults"`
	Logs   []string            `yaml:"logs"`
}

// writeClusterFile writes ClusterFileName: the cluster as the external
// backend sees it, each fault a `kafkabook cluster OP --name NAME NODE`
// command of the kafkabook binary that started it. It holds the paths of
// the CA and the password file, not the password.
func (b *Backend) writeClusterFile(st state) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	var f clusterFile
	f.Name, f.Kafka = "local-"+st.Name, st.Kafka
	for _, n := range st.Nodes {
		f.Nodes = append(f.Nodes, struct {
			Name    string `yaml:"name"`
			ID      int    `yaml:"id"`
			Address string `yaml:"address"`
		}{n.Name, n.ID, fmt.Sprintf("%s:%d", st.Network.nodeIP(n.ID), securePort)})
	}
	f.TLS.CAFile = caFile
	f.SASL.Mechanism, f.SASL.User, f.SASL.PasswordFile = scramMechanism, AdminUser, passwordFile
	f.Faults = map[string][]string{}
	for _, op := range cluster.Ops {
		if !cluster.Simple(op) {
			continue // a compound fault is its steps' commands
		}
		f.Faults[string(op)] = []string{exe, "cluster", string(op), "--backend", Name, "--name", st.Name, "{node}"}
	}
	f.Logs = []string{exe, "cluster", "logs", "--backend", Name, "--name", st.Name, "{node}"}
	data, err := yaml.Marshal(f)
	if err != nil {
		return "", err
	}
	path := filepath.Join(b.dir, ClusterFileName)
	head := "# An external cluster file for the local cluster " + st.Name + " (kafkabook cluster up --security sasl-ssl).\n" +
		"# Use it with --backend external --cluster-file " + path + "\n"
	return path, os.WriteFile(path, append([]byte(head), data...), 0o644)
}

// ClusterFile is the path of the cluster file of a secure cluster, ""
// for a plaintext one.
func (b *Backend) ClusterFile() string {
	st, ok, err := b.load()
	if err != nil || !ok || !st.secure() {
		return ""
	}
	return filepath.Join(b.dir, ClusterFileName)
}
