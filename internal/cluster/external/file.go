package external

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/runbook"
	"gopkg.in/yaml.v3"
)

// File is a cluster file: what kafkabook knows of a cluster it did not
// start. It holds no secret: a SASL password comes from an environment
// variable or a file the cluster file names.
type File struct {
	// Name names the cluster in status, provenance and the file that
	// keeps the last command applied to each node.
	Name string `yaml:"name"`
	// Kafka is the release the cluster runs, as far as its owner says;
	// empty is unknown.
	Kafka string `yaml:"kafka"`
	Nodes []Node `yaml:"nodes"`
	TLS   *TLS   `yaml:"tls"`
	SASL  *SASL  `yaml:"sasl"`
	// Faults maps a fault (kill, stop, start, pause, resume, isolate,
	// rejoin) to the command that applies it to one node: an argument
	// vector run without a shell, templated with {node}, {id} and
	// {address}.
	Faults map[string][]string `yaml:"faults"`
	// Logs is the command that prints one node's broker log, templated
	// like a fault; without it the evidence has no broker log lines.
	Logs []string `yaml:"logs"`
	// Release is the command that puts one node on another Kafka release
	// from its next start (restart --to, roll --to; the stop and start
	// commands then restart it), templated like a fault and with
	// {version}: what an operator's upgrade script does to the node's
	// host, image or package. Without it a runbook cannot move a node.
	Release []string `yaml:"release"`

	dir string // the cluster file's directory: relative paths start there
}

// Node is one broker of the cluster.
type Node struct {
	// Name is what the fault and log commands get as {node}: a host
	// name, a pod, a service; anything.
	Name string `yaml:"name"`
	// ID is the broker's node.id. A runbook refers to the node by Name
	// or as k<ID>; status and evidence say k<ID>.
	ID int `yaml:"id"`
	// Address is the host:port of its client listener, reachable from
	// this machine; the nodes' addresses are the bootstrap servers.
	Address string `yaml:"address"`
}

// TLS is the trust for a TLS client listener.
type TLS struct {
	CAFile     string `yaml:"ca_file"`     // PEM; relative to the cluster file
	ServerName string `yaml:"server_name"` // checked against every broker's certificate instead of its host
}

// SASL is the identity kafkabook's clients use. The password is read
// from PasswordEnv or PasswordFile when a run starts, never from the
// cluster file or the runbook.
type SASL struct {
	Mechanism    string `yaml:"mechanism"` // PLAIN, SCRAM-SHA-256, SCRAM-SHA-512
	User         string `yaml:"user"`
	PasswordEnv  string `yaml:"password_env"`
	PasswordFile string `yaml:"password_file"` // relative to the cluster file
}

var (
	fileNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)
	placeRE    = regexp.MustCompile(`\{[a-z_]*\}`)
	kNameRE    = regexp.MustCompile(`^k[0-9]+$`)
	nodeNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$`)
)

// Load reads and checks a cluster file.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cluster file: %w", err)
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("cluster file %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	f.dir = filepath.Dir(abs)
	return f, nil
}

// Parse decodes and checks a cluster file's text; relative paths in it
// are taken from the working directory.
func Parse(data []byte) (*File, error) {
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if strings.Contains(err.Error(), "field password ") {
			return nil, errors.New("sasl: a password never goes into the cluster file: name an environment variable (password_env) or a file (password_file) that holds it")
		}
		return nil, err
	}
	return &f, f.check()
}

func (f *File) check() error {
	if !fileNameRE.MatchString(f.Name) {
		return fmt.Errorf("name %q: use 1 to 40 lower-case letters, digits and dashes", f.Name)
	}
	if len(f.Nodes) == 0 {
		return errors.New("nodes: list the brokers, each with name, id and address")
	}
	names, ids := map[string]bool{}, map[int]bool{}
	for i, n := range f.Nodes {
		switch {
		case n.Name == "":
			return fmt.Errorf("nodes[%d]: no name", i)
		case !nodeNameRE.MatchString(n.Name):
			// It reaches the fault and log commands as {node}: one that
			// starts with a dash would be read there as an option.
			return fmt.Errorf("node %q: use letters, digits, dots, dashes and underscores, starting with a letter or digit (the commands get it as {node})", n.Name)
		case n.ID < 1:
			return fmt.Errorf("node %s: id %d: a runbook refers to node id N as kN, so ids start at 1", n.Name, n.ID)
		case !strings.Contains(n.Address, ":"):
			return fmt.Errorf("node %s: address %q: want HOST:PORT of its client listener", n.Name, n.Address)
		case kNameRE.MatchString(n.Name) && n.Name != runbook.NodeName(n.ID):
			return fmt.Errorf("node %s has id %d: a runbook's %s is the node of id %s, so name it k%d or something else", n.Name, n.ID, n.Name, n.Name[1:], n.ID)
		case names[n.Name]:
			return fmt.Errorf("node %s is listed twice", n.Name)
		case ids[n.ID]:
			return fmt.Errorf("node id %d is listed twice", n.ID)
		}
		names[n.Name], ids[n.ID] = true, true
	}
	for i := 1; i <= len(f.Nodes); i++ {
		if !ids[i] {
			return fmt.Errorf("node ids must be 1..%d (a runbook refers to them as k1..k%d): id %d is missing", len(f.Nodes), len(f.Nodes), i)
		}
	}
	if f.SASL != nil {
		s := f.SASL
		if !slices.Contains([]string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}, s.Mechanism) {
			return fmt.Errorf("sasl: mechanism %q: use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", s.Mechanism)
		}
		if s.User == "" {
			return errors.New("sasl: no user")
		}
		if (s.PasswordEnv == "") == (s.PasswordFile == "") {
			return errors.New("sasl: name where the password is: password_env (an environment variable) or password_file, one of them")
		}
	}
	for op, argv := range f.Faults {
		if !cluster.Simple(cluster.Op(op)) {
			return fmt.Errorf("faults: %q is not a fault with a command of its own: use %s", op, OpList())
		}
		if err := checkArgv(argv); err != nil {
			return fmt.Errorf("faults: %s: %w", op, err)
		}
	}
	if f.Logs != nil {
		if err := checkArgv(f.Logs); err != nil {
			return fmt.Errorf("logs: %w", err)
		}
	}
	if f.Release != nil {
		if err := checkArgv(f.Release, "{version}"); err != nil {
			return fmt.Errorf("release: %w", err)
		}
	}
	return nil
}

// checkArgv refuses an empty command and unknown placeholders: {node},
// {id}, {address} and the extra ones the command takes.
func checkArgv(argv []string, extra ...string) error {
	if len(argv) == 0 || argv[0] == "" {
		return errors.New("an empty command: give an argument vector, e.g. [ssh, \"{node}\", sudo, systemctl, kill, -s, KILL, kafka]")
	}
	known := append([]string{"{node}", "{id}", "{address}"}, extra...)
	for _, a := range argv {
		for _, p := range placeRE.FindAllString(a, -1) {
			if !slices.Contains(known, p) {
				return fmt.Errorf("%s in %q: the placeholders are %s", p, a, strings.Join(known, ", "))
			}
		}
	}
	return nil
}

// OpList names the faults a cluster file may give a command for: the
// simple ops of cluster.Faults (a compound one runs its steps' commands).
func OpList() string {
	var s []string
	for _, op := range cluster.Ops {
		if cluster.Simple(op) {
			s = append(s, string(op))
		}
	}
	return strings.Join(s, ", ")
}

// path resolves a path the cluster file names.
func (f *File) path(p string) string {
	if p == "" || filepath.IsAbs(p) || f.dir == "" {
		return p
	}
	return filepath.Join(f.dir, p)
}

// Missing says why the cluster cannot apply op ("" when it can): it has
// no command for it, or none for the repair a run needs afterwards (every
// run starts by bringing nodes back).
func (f *File) Missing(op cluster.Op) string {
	row, _ := cluster.FaultOf(op)
	need := []cluster.Op{op}
	if len(row.Steps) > 0 {
		need = row.Steps // a compound fault runs its steps' commands
	}
	if row.Repair != "" {
		need = append(need, row.Repair)
	}
	var missing []string
	for _, o := range need {
		if len(f.Faults[string(o)]) == 0 {
			missing = append(missing, string(o))
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("the external cluster %s has no command for %s: add faults: %s: [...] to its cluster file", f.Name, strings.Join(missing, " and "), missing[0])
}

// ReleaseMissing says why the cluster cannot move a node to another
// release ("" when it can): it has no release command, or no stop and
// start commands to restart the node with.
func (f *File) ReleaseMissing() string {
	if len(f.Release) == 0 {
		return fmt.Sprintf("the external cluster %s has no command that puts a node on another release: add release: [...] to its cluster file, templated with {node} and {version}", f.Name)
	}
	return f.Missing(cluster.Restart)
}

// NodeNames maps each node's name to k<ID>, the name runbooks and
// status use, for the names that differ.
func (f *File) NodeNames() map[string]string {
	m := map[string]string{}
	for _, n := range f.Nodes {
		if k := runbook.NodeName(n.ID); n.Name != k {
			m[n.Name] = k
		}
	}
	return m
}

// Node finds a node by its name in the file or as k<ID>.
func (f *File) Node(ref string) (Node, bool) {
	for _, n := range f.Nodes {
		if n.Name == ref || runbook.NodeName(n.ID) == ref {
			return n, true
		}
	}
	return Node{}, false
}

// Access is how a client reaches the brokers: the TLS trust and the SASL
// identity, its password read now.
func (f *File) Access() (cluster.Access, error) {
	var a cluster.Access
	if f.TLS != nil {
		a.TLS = &cluster.TLS{CAFile: f.path(f.TLS.CAFile), ServerName: f.TLS.ServerName}
	}
	if f.SASL != nil {
		pw, err := f.password()
		if err != nil {
			return cluster.Access{}, err
		}
		a.SASL = &cluster.SASL{Mechanism: f.SASL.Mechanism, User: f.SASL.User, Password: pw}
	}
	return a, nil
}

func (f *File) password() (string, error) {
	s := f.SASL
	if s.PasswordEnv != "" {
		pw, ok := os.LookupEnv(s.PasswordEnv)
		if !ok || pw == "" {
			return "", fmt.Errorf("cluster %s: the SASL password is read from $%s, which is not set", f.Name, s.PasswordEnv)
		}
		return pw, nil
	}
	data, err := os.ReadFile(f.path(s.PasswordFile))
	if err != nil {
		return "", fmt.Errorf("cluster %s: reading the SASL password: %w", f.Name, err)
	}
	pw := strings.TrimRight(string(data), "\r\n")
	if pw == "" {
		return "", fmt.Errorf("cluster %s: the SASL password file %s is empty", f.Name, s.PasswordFile)
	}
	return pw, nil
}

// expand fills a command's placeholders for node n, and the more
// pairs of placeholder and value a command takes ({version}).
func expand(argv []string, n Node, more ...string) []string {
	out := make([]string, len(argv))
	r := strings.NewReplacer(append([]string{"{node}", n.Name, "{id}", fmt.Sprint(n.ID), "{address}", n.Address}, more...)...)
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}
