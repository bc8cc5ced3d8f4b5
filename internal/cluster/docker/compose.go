package docker

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/kafkabook/kafkabook"
)

// The cluster's shape comes from compose.yaml (the copy built into the
// binary, or --compose FILE): services k1..kN, each a combined KRaft node
// with KAFKA_NODE_ID N, one published port (its host listener), a fixed
// address on one network, and volumes and configs. kafkabook fills in the
// file's variables per cluster — KAFKA_VERSION, KAFKA_NET (first three
// octets of the network's /24), K1_PORT..KN_PORT (host ports) — and adds
// --set overrides to every node's environment as KAFKA_* variables.

// node is one service of the project, as the backend creates it.
type node struct {
	Name     string // k1
	ID       int
	Service  types.ServiceConfig
	Network  string // the project's network (compose key)
	IP       string // fixed address on it
	HostPort string // published port of the host listener
}

// project is a loaded compose file with its nodes in id order.
type project struct {
	*types.Project
	Nodes []node
}

var serviceRE = regexp.MustCompile(`^k([1-9][0-9]?)$`)

// loadCompose reads the compose file with the given variables; dir is where
// its relative paths point.
func loadCompose(ctx context.Context, data []byte, dir, projectName string, env map[string]string) (*project, error) {
	if data == nil {
		data = kafkabook.Compose
	}
	details := types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, "compose.yaml"), Content: data}},
		Environment: types.Mapping(env),
	}
	p, err := loader.LoadWithContext(ctx, details, func(o *loader.Options) {
		o.SetProjectName(projectName, true)
	})
	if err != nil {
		return nil, fmt.Errorf("compose file: %w", err)
	}
	out := &project{Project: p}
	for name, svc := range p.Services {
		m := serviceRE.FindStringSubmatch(name)
		if m == nil {
			return nil, fmt.Errorf("compose file: service %q: kafkabook runs services named k1, k2, ... (combined KRaft nodes) and nothing else", name)
		}
		id, _ := strconv.Atoi(m[1])
		n := node{Name: name, ID: id, Service: svc}
		if v := svc.Environment["KAFKA_NODE_ID"]; v == nil || *v != m[1] {
			return nil, fmt.Errorf("compose file: service %s needs KAFKA_NODE_ID: %d", name, id)
		}
		if len(svc.Networks) != 1 {
			return nil, fmt.Errorf("compose file: service %s must be on exactly one network (the one isolate cuts it off)", name)
		}
		for key, cfg := range svc.Networks {
			n.Network = key
			if cfg == nil || cfg.Ipv4Address == "" {
				return nil, fmt.Errorf("compose file: service %s needs a fixed ipv4_address on network %s, so rejoin can restore it", name, key)
			}
			n.IP = cfg.Ipv4Address
		}
		if len(svc.Ports) != 1 || svc.Ports[0].Published == "" {
			return nil, fmt.Errorf("compose file: service %s needs exactly one published port: its listener for clients on the host", name)
		}
		n.HostPort = svc.Ports[0].Published
		out.Nodes = append(out.Nodes, n)
	}
	slices.SortFunc(out.Nodes, func(a, b node) int { return a.ID - b.ID })
	for i, n := range out.Nodes {
		if n.ID != i+1 {
			return nil, fmt.Errorf("compose file: services must be k1..k%d without gaps; k%d is missing", len(out.Nodes), i+1)
		}
		if n.Network != out.Nodes[0].Network {
			return nil, fmt.Errorf("compose file: every node must be on the same network (%s is on %s, k1 on %s)", n.Name, n.Network, out.Nodes[0].Network)
		}
	}
	if len(out.Nodes) == 0 {
		return nil, fmt.Errorf("compose file: no services named k1, k2 and so on")
	}
	return out, nil
}

// readComposeFile reads --compose FILE; the directory of FILE is where its
// relative paths point.
func readComposeFile(path string) (data []byte, dir string, err error) {
	if path == "" {
		return kafkabook.Compose, "", nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", err
	}
	data, err = os.ReadFile(abs)
	return data, filepath.Dir(abs), err
}

// envKey is the apache/kafka image's environment name of a broker
// setting: KAFKA_ then upper case, '.' as '_', '_' as '__', '-' as '___'.
func envKey(setting string) string {
	r := strings.NewReplacer("_", "__", "-", "___", ".", "_")
	return "KAFKA_" + strings.ToUpper(r.Replace(setting))
}

// applyBroker puts --set overrides into every node's environment.
func (p *project) applyBroker(broker map[string]string) {
	for i := range p.Nodes {
		env := maps.Clone(p.Nodes[i].Service.Environment)
		for k, v := range broker {
			env[envKey(k)] = &v
		}
		p.Nodes[i].Service.Environment = env
	}
}

// tag is a short hash of the cluster name, like the local backend's.
func tagByte(name string) byte {
	sum := sha256.Sum256([]byte(name))
	return sum[0]
}

// freeNet picks the first three octets of a /24 in 10.214.0.0/16, starting
// at the cluster name's hash, that no Docker network and no host address
// overlaps.
func freeNet(name string, used []*net.IPNet) (string, error) {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok {
			used = append(used, ipn)
		}
	}
	start := int(tagByte(name))
	for i := range 256 {
		third := (start + i) % 256
		_, cand, _ := net.ParseCIDR(fmt.Sprintf("10.214.%d.0/24", third))
		clash := false
		for _, u := range used {
			if u.Contains(cand.IP) || cand.Contains(u.IP) {
				clash = true
			}
		}
		if !clash {
			return fmt.Sprintf("10.214.%d", third), nil
		}
	}
	return "", fmt.Errorf("no free /24 in 10.214.0.0/16 for the cluster network")
}

// freePort returns want when nothing listens on it on the host, else a
// port the kernel picks.
func freePort(want string, taken map[string]bool) (string, error) {
	if !taken[want] {
		if l, err := net.Listen("tcp", ":"+want); err == nil {
			l.Close()
			return want, nil
		}
	}
	for range 20 {
		l, err := net.Listen("tcp", ":0")
		if err != nil {
			return "", err
		}
		port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		l.Close()
		if !taken[port] {
			return port, nil
		}
	}
	return "", fmt.Errorf("no free host port")
}
