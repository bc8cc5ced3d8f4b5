// Package docker runs a Kafka KRaft cluster as Docker containers, one per
// combined broker+controller node, shaped by compose.yaml and driven
// through the Docker Engine API: kill is SIGKILL to the container, stop a
// graceful stop, pause the cgroup freezer, isolate a disconnect from the
// cluster's network (the acks article's operation) and rejoin a reconnect
// with the same address and alias.
//
// Everything a cluster creates carries the label kafkabook.cluster=<name>
// (and kafkabook.root=<state root>, so that clusters of another state root
// are not this one's); down removes exactly the containers, networks and
// volumes with those labels, and nothing else. The daemon is the state:
// there is no state file.
package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/docker/go-connections/nat"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/internal/poll"
)

// Name is this backend's name in provenance and status.
const Name = "docker"

// Labels on everything a cluster creates.
const (
	labelCluster = "kafkabook.cluster"
	labelRoot    = "kafkabook.root"
	// On containers only:
	labelNode    = "kafkabook.node"
	labelNodeID  = "kafkabook.node-id"
	labelKafka   = "kafkabook.kafka"
	labelBroker  = "kafkabook.broker"  // JSON of the --set overrides
	labelAddress = "kafkabook.address" // host:port of the host listener
	labelNetwork = "kafkabook.network" // the cluster network's name
	labelIP      = "kafkabook.ip"      // the node's address on it
	labelAliases = "kafkabook.aliases" // its aliases there, comma-separated
	labelOwner   = "kafkabook.owner"   // "pid start-time" of the process that started it
	labelKept    = "kafkabook.kept"    // "true" when it outlives its owner
	labelCreated = "kafkabook.created" // RFC 3339
)

// Options choose what a cluster runs.
type Options struct {
	// Image runs instead of the one Up picks (apache/kafka:VERSION, else
	// kafkabook/kafka:VERSION built here, else a pull of the first).
	Image string
	// ComposeFile is read instead of the compose.yaml built into kafkabook.
	ComposeFile string
}

// Backend is one named Docker cluster.
type Backend struct {
	name string
	root string // state root: the clusters of one root are one set
	opts Options

	once   sync.Once
	cli    *client.Client
	cliErr error
}

var _ cluster.Backend = (*Backend)(nil)

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,23}$`)

// New returns the backend for the cluster called name under the state root
// that the local backend uses too ($KAFKABOOK_STATE, ...).
func New(name string, opts Options) (*Backend, error) {
	if !nameRE.MatchString(name) {
		return nil, fmt.Errorf("cluster name %q: use 1 to 24 lower-case letters, digits and dashes", name)
	}
	root, err := local.StateRoot()
	if err != nil {
		return nil, err
	}
	return &Backend{name: name, root: root, opts: opts}, nil
}

// ErrNoDaemon is returned when no Docker daemon answers.
var ErrNoDaemon = errors.New("no Docker daemon")

// connect opens the Engine API client once and checks that a daemon
// answers.
func (b *Backend) client(ctx context.Context) (*client.Client, error) {
	b.once.Do(func() { b.cli, b.cliErr = connect(ctx) })
	return b.cli, b.cliErr
}

func connect(ctx context.Context) (*client.Client, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDaemon, err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := cli.Ping(pctx); err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w answers at %s (%v): start one (`sudo systemctl start docker`, or where there is no systemd `sudo dockerd >/var/log/dockerd.log 2>&1 &`), or use --backend local", ErrNoDaemon, cli.DaemonHost(), err)
	}
	cli.NegotiateAPIVersion(ctx)
	return cli, nil
}

// DaemonRunning reports whether a Docker daemon answers.
func DaemonRunning(ctx context.Context) bool {
	cli, err := connect(ctx)
	if err == nil {
		cli.Close()
	}
	return err == nil
}

func (b *Backend) projectName() string { return "kafkabook-" + b.name }

// filter selects what belongs to this cluster.
func (b *Backend) filter(extra ...filters.KeyValuePair) filters.Args {
	args := append([]filters.KeyValuePair{
		filters.Arg("label", labelCluster+"="+b.name),
		filters.Arg("label", labelRoot+"="+b.root),
	}, extra...)
	return filters.NewArgs(args...)
}

func (b *Backend) labels() map[string]string {
	return map[string]string{labelCluster: b.name, labelRoot: b.root}
}

// Up starts the cluster. What an earlier cluster of the same name left
// behind (its owner died, or a crash) is removed first; one that is up, or
// private to a process that still runs, is an error.
func (b *Backend) Up(ctx context.Context, cfg cluster.Config, progress cluster.Progress) (cluster.Status, error) {
	start := time.Now()
	cli, err := b.client(ctx)
	if err != nil {
		return cluster.Status{}, err
	}
	if cfg.Kafka == "" {
		cfg.Kafka = local.DefaultKafka
	}
	if err := b.checkExisting(ctx, cli, progress); err != nil {
		return cluster.Status{}, err
	}
	p, err := b.plan(ctx, cli, cfg)
	if err != nil {
		return cluster.Status{}, err
	}
	image, err := b.image(ctx, cli, p.Nodes[0].Service.Image, cfg.Kafka, progress)
	if err != nil {
		return cluster.Status{}, err
	}
	progress("starting %d Kafka %s nodes from %s on network %s (%s.0/24)", len(p.Nodes), cfg.Kafka, image, p.Networks[p.Nodes[0].Network].Name, p.Environment["KAFKA_NET"])
	status, err := b.create(ctx, cli, p, cfg, image, progress)
	if err != nil {
		// Remove whatever exists, even when ctx is done (Ctrl-C).
		if rmErr := b.Down(context.WithoutCancel(ctx), func(string, ...any) {}); rmErr != nil {
			err = fmt.Errorf("%w\n(and cleaning up failed: %v)", err, rmErr)
		}
		return cluster.Status{}, err
	}
	progress("cluster %s up after %.1fs", b.name, time.Since(start).Seconds())
	return status, nil
}

// checkExisting refuses to start over a live cluster and removes the
// remains of a dead one.
func (b *Backend) checkExisting(ctx context.Context, cli *client.Client, progress cluster.Progress) error {
	all, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", labelCluster+"="+b.name))})
	if err != nil {
		return err
	}
	mine := 0
	for _, c := range all {
		if c.Labels[labelRoot] != b.root {
			return fmt.Errorf("Docker cluster %q belongs to kafkabook state %s (container %s): pick another --name, or take it down with KAFKABOOK_STATE=%s kafkabook cluster down --backend docker --name %s",
				b.name, c.Labels[labelRoot], strings.TrimPrefix(c.Names[0], "/"), c.Labels[labelRoot], b.name)
		}
		mine++
		o := parseOwner(c.Labels[labelOwner])
		switch {
		case c.Labels[labelKept] != "true" && o.alive() && !o.isSelf():
			return fmt.Errorf("cluster %q belongs to a kafkabook that still runs (pid %d); pick another --name, or wait for it to end", b.name, o.PID)
		case c.State == container.StateRunning || c.State == container.StatePaused:
			return fmt.Errorf("cluster %q is already up: use it, or take it down first with `kafkabook cluster down --backend docker --name %s`", b.name, b.name)
		}
	}
	nets, _ := cli.NetworkList(ctx, network.ListOptions{Filters: b.filter()})
	vols, _ := cli.VolumeList(ctx, volume.ListOptions{Filters: b.filter()})
	if mine+len(nets)+len(vols.Volumes) > 0 {
		progress("removing what an earlier run of cluster %q left behind", b.name)
		return b.Down(ctx, progress)
	}
	return nil
}

// plan loads the compose file with this cluster's variables: a free
// network, free host ports, the Kafka version.
func (b *Backend) plan(ctx context.Context, cli *client.Client, cfg cluster.Config) (*project, error) {
	data, dir, err := readComposeFile(b.opts.ComposeFile)
	if err != nil {
		return nil, err
	}
	env := map[string]string{"KAFKA_VERSION": cfg.Kafka}
	first, err := loadCompose(ctx, data, dir, b.projectName(), env)
	if err != nil {
		return nil, err
	}
	if cfg.Nodes != 0 && cfg.Nodes != len(first.Nodes) {
		return nil, fmt.Errorf("--nodes %d: the compose file defines %d nodes (k1..k%d); a Docker cluster has as many nodes as its compose file", cfg.Nodes, len(first.Nodes), len(first.Nodes))
	}
	var used []*net.IPNet
	nets, err := cli.NetworkList(ctx, network.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, n := range nets {
		for _, c := range n.IPAM.Config {
			if _, ipn, err := net.ParseCIDR(c.Subnet); err == nil {
				used = append(used, ipn)
			}
		}
	}
	if env["KAFKA_NET"], err = freeNet(b.name, used); err != nil {
		return nil, err
	}
	// A stopped or killed node's container holds no port, but gets its
	// port back when started: ports of every kafkabook container count as
	// taken.
	taken := map[string]bool{}
	others, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", labelCluster))})
	if err != nil {
		return nil, err
	}
	for _, c := range others {
		in, err := cli.ContainerInspect(ctx, c.ID)
		if err != nil || in.HostConfig == nil {
			continue
		}
		for _, bs := range in.HostConfig.PortBindings {
			for _, pb := range bs {
				taken[pb.HostPort] = true
			}
		}
	}
	for _, n := range first.Nodes {
		port, err := freePort(n.HostPort, taken)
		if err != nil {
			return nil, err
		}
		taken[port] = true
		env[strings.ToUpper(n.Name)+"_PORT"] = port
	}
	p, err := loadCompose(ctx, data, dir, b.projectName(), env)
	if err != nil {
		return nil, err
	}
	p.applyBroker(cfg.Broker)
	return p, nil
}

// create makes the network, volumes and containers, starts them and waits
// for the brokers.
func (b *Backend) create(ctx context.Context, cli *client.Client, p *project, cfg cluster.Config, image string, progress cluster.Progress) (cluster.Status, error) {
	netKey := p.Nodes[0].Network
	nc := p.Networks[netKey]
	ipam := &network.IPAM{Driver: nc.Ipam.Driver}
	for _, pool := range nc.Ipam.Config {
		ipam.Config = append(ipam.Config, network.IPAMConfig{Subnet: pool.Subnet, Gateway: pool.Gateway, IPRange: pool.IPRange})
	}
	driver := nc.Driver
	if driver == "" {
		driver = "bridge"
	}
	if _, err := cli.NetworkCreate(ctx, nc.Name, network.CreateOptions{
		Driver: driver, IPAM: ipam, Options: nc.DriverOpts, Labels: b.labels(), Internal: nc.Internal,
	}); err != nil {
		return cluster.Status{}, fmt.Errorf("create network %s: %w", nc.Name, err)
	}
	for key, v := range p.Volumes {
		if _, err := cli.VolumeCreate(ctx, volume.CreateOptions{Name: v.Name, Driver: v.Driver, DriverOpts: v.DriverOpts, Labels: b.labels()}); err != nil {
			return cluster.Status{}, fmt.Errorf("create volume %s (%s): %w", v.Name, key, err)
		}
	}
	broker, _ := json.Marshal(cfg.Broker)
	created := time.Now().UTC().Format(time.RFC3339)
	var ids []string
	for _, n := range p.Nodes {
		id, err := b.createNode(ctx, cli, p, n, image, map[string]string{
			labelNode: n.Name, labelNodeID: strconv.Itoa(n.ID), labelKafka: cfg.Kafka,
			labelBroker: string(broker), labelAddress: "localhost:" + n.HostPort,
			labelNetwork: nc.Name, labelIP: n.IP, labelOwner: self().String(),
			labelKept: strconv.FormatBool(cfg.Keep), labelCreated: created,
		})
		if err != nil {
			return cluster.Status{}, err
		}
		ids = append(ids, id)
	}
	for i, id := range ids {
		if err := cli.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
			return cluster.Status{}, fmt.Errorf("start %s: %w", p.Nodes[i].Name, err)
		}
	}
	st, err := b.Status(ctx)
	if err != nil {
		return cluster.Status{}, err
	}
	dead := func(ctx context.Context) string {
		cur, err := b.Status(ctx)
		if err != nil {
			return ""
		}
		for _, n := range cur.Nodes {
			if !n.State.Up() {
				return n.Name
			}
		}
		return ""
	}
	tail := func(node string, lines int) string { return b.logTail(ctx, node, lines) }
	if err := cluster.WaitBrokers(ctx, st.Nodes, dead, tail, progress); err != nil {
		return cluster.Status{}, err
	}
	return b.Status(ctx)
}

// createNode creates node n's container from its service, with the
// service's configs copied in.
func (b *Backend) createNode(ctx context.Context, cli *client.Client, p *project, n node, image string, extra map[string]string) (string, error) {
	svc := n.Service
	labels := b.labels()
	for k, v := range svc.Labels {
		labels[k] = v
	}
	for k, v := range extra {
		labels[k] = v
	}
	aliases := append([]string{n.Name}, svc.Networks[n.Network].Aliases...)
	labels[labelAliases] = strings.Join(aliases, ",")
	var env []string
	for k, v := range svc.Environment {
		if v != nil {
			env = append(env, k+"="+*v)
		}
	}
	slices.Sort(env)
	exposed := nat.PortSet{}
	bindings := nat.PortMap{}
	for _, pc := range svc.Ports {
		port := nat.Port(fmt.Sprintf("%d/%s", pc.Target, cmp(pc.Protocol, "tcp")))
		exposed[port] = struct{}{}
		bindings[port] = append(bindings[port], nat.PortBinding{HostIP: pc.HostIP, HostPort: pc.Published})
	}
	var mounts []mount.Mount
	for _, v := range svc.Volumes {
		switch v.Type {
		case "volume":
			mounts = append(mounts, mount.Mount{Type: mount.TypeVolume, Source: p.Volumes[v.Source].Name, Target: v.Target, ReadOnly: v.ReadOnly})
		case "bind":
			mounts = append(mounts, mount.Mount{Type: mount.TypeBind, Source: v.Source, Target: v.Target, ReadOnly: v.ReadOnly})
		case "tmpfs":
			mounts = append(mounts, mount.Mount{Type: mount.TypeTmpfs, Target: v.Target})
		default:
			return "", fmt.Errorf("compose file: service %s: volume type %q is not supported", n.Name, v.Type)
		}
	}
	hostname := svc.Hostname
	if hostname == "" {
		hostname = n.Name
	}
	cfg := &container.Config{
		Hostname: hostname, Image: image, Env: env, Labels: labels, ExposedPorts: exposed,
		Entrypoint: []string(svc.Entrypoint), Cmd: []string(svc.Command), User: svc.User,
	}
	hc := &container.HostConfig{PortBindings: bindings, Mounts: mounts, RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyDisabled}}
	nw := &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
		p.Networks[n.Network].Name: {IPAMConfig: &network.EndpointIPAMConfig{IPv4Address: n.IP}, Aliases: aliases},
	}}
	name := p.Name + "-" + n.Name
	resp, err := cli.ContainerCreate(ctx, cfg, hc, nw, nil, name)
	if err != nil {
		return "", fmt.Errorf("create container %s: %w", name, err)
	}
	for _, ref := range svc.Configs {
		c, ok := p.Configs[ref.Source]
		if !ok {
			return "", fmt.Errorf("compose file: service %s uses config %q, which is not defined", n.Name, ref.Source)
		}
		content, err := configContent(types.FileObjectConfig(c))
		if err != nil {
			return "", fmt.Errorf("config %s: %w", ref.Source, err)
		}
		target := ref.Target
		if target == "" {
			target = "/" + ref.Source
		}
		mode := int64(0o444)
		if ref.Mode != nil {
			mode = int64(*ref.Mode)
		}
		if err := copyFile(ctx, cli, resp.ID, target, content, mode); err != nil {
			return "", fmt.Errorf("copy config %s into %s: %w", ref.Source, name, err)
		}
	}
	return resp.ID, nil
}

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// containers lists the cluster's containers, by node id.
func (b *Backend) containers(ctx context.Context, cli *client.Client) ([]container.Summary, error) {
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: b.filter(filters.Arg("label", labelNode))})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(cs, func(a, c container.Summary) int {
		x, _ := strconv.Atoi(a.Labels[labelNodeID])
		y, _ := strconv.Atoi(c.Labels[labelNodeID])
		return x - y
	})
	return cs, nil
}

// Status describes the cluster from its containers.
func (b *Backend) Status(ctx context.Context) (cluster.Status, error) {
	cli, err := b.client(ctx)
	if err != nil {
		return cluster.Status{}, err
	}
	cs, err := b.containers(ctx, cli)
	if err != nil {
		return cluster.Status{}, err
	}
	if len(cs) == 0 {
		return cluster.Status{}, fmt.Errorf("%w: no Docker cluster %q is up (start one with `kafkabook cluster up --backend docker`)", cluster.ErrNotFound, b.name)
	}
	st := cluster.Status{Name: b.name, Backend: Name, Kafka: cs[0].Labels[labelKafka]}
	json.Unmarshal([]byte(cs[0].Labels[labelBroker]), &st.Broker)
	for _, c := range cs {
		in, err := cli.ContainerInspect(ctx, c.ID)
		if err != nil {
			return cluster.Status{}, err
		}
		id, _ := strconv.Atoi(c.Labels[labelNodeID])
		n := cluster.Node{Name: c.Labels[labelNode], ID: id, Address: c.Labels[labelAddress], State: nodeState(in)}
		if n.State.Up() {
			n.PID = in.State.Pid
		}
		st.Nodes = append(st.Nodes, n)
	}
	return st, nil
}

// nodeState reads a node's state off its container: a frozen one is
// paused, a running one off its network isolated; a stopped one was killed
// when SIGKILL ended it (exit 137, not the kernel's OOM killer), stopped
// when it shut down (0 or 143, SIGTERM), else it exited unasked.
func nodeState(in container.InspectResponse) cluster.State {
	s := in.State
	switch {
	case s == nil:
		return cluster.Exited
	case s.Paused:
		return cluster.Paused
	case s.Running || s.Restarting:
		if _, ok := in.NetworkSettings.Networks[in.Config.Labels[labelNetwork]]; !ok {
			return cluster.Isolated
		}
		return cluster.Running
	case s.ExitCode == 137 && !s.OOMKilled:
		return cluster.Killed
	case s.ExitCode == 0 || s.ExitCode == 143:
		return cluster.Stopped
	}
	return cluster.Exited
}

// Apply performs op on the named nodes, in the order given.
func (b *Backend) Apply(ctx context.Context, op cluster.Op, names []string, progress cluster.Progress) error {
	cli, err := b.client(ctx)
	if err != nil {
		return err
	}
	cs, err := b.containers(ctx, cli)
	if err != nil {
		return err
	}
	if len(cs) == 0 {
		return fmt.Errorf("no Docker cluster %q is up (start one with `kafkabook cluster up --backend docker`)", b.name)
	}
	byName := map[string]container.Summary{}
	for _, c := range cs {
		byName[c.Labels[labelNode]] = c
	}
	for _, name := range names {
		if _, ok := byName[name]; !ok {
			return fmt.Errorf("no node %q in cluster %q (it has k1..k%d)", name, b.name, len(cs))
		}
	}
	for _, name := range names {
		if err := b.apply(ctx, cli, op, byName[name], progress); err != nil {
			return fmt.Errorf("%s %s: %w", op, name, err)
		}
	}
	return nil
}

func (b *Backend) apply(ctx context.Context, cli *client.Client, op cluster.Op, c container.Summary, progress cluster.Progress) error {
	in, err := cli.ContainerInspect(ctx, c.ID)
	if err != nil {
		return err
	}
	running := in.State.Running
	paused := in.State.Paused
	netName := c.Labels[labelNetwork]
	_, attached := in.NetworkSettings.Networks[netName]
	switch op {
	case cluster.Kill:
		if !running {
			return nil
		}
		if paused { // the engine refuses to signal a frozen container
			if err := cli.ContainerUnpause(ctx, c.ID); err != nil {
				return err
			}
		}
		if err := cli.ContainerKill(ctx, c.ID, "SIGKILL"); err != nil {
			return err
		}
		return b.waitExited(ctx, cli, c, 10*time.Second, progress)
	case cluster.Stop:
		if !running {
			return nil
		}
		if paused { // a frozen JVM cannot shut down
			if err := cli.ContainerUnpause(ctx, c.ID); err != nil {
				return err
			}
		}
		timeout := 60
		if err := cli.ContainerStop(ctx, c.ID, container.StopOptions{Signal: "SIGTERM", Timeout: &timeout}); err != nil {
			return err
		}
		return b.waitExited(ctx, cli, c, 10*time.Second, progress)
	case cluster.Start:
		if running {
			return nil
		}
		return cli.ContainerStart(ctx, c.ID, container.StartOptions{})
	case cluster.Pause:
		if !running {
			return fmt.Errorf("%s is not running", c.Labels[labelNode])
		}
		if paused {
			return nil
		}
		return cli.ContainerPause(ctx, c.ID)
	case cluster.Resume:
		if !paused {
			return nil
		}
		return cli.ContainerUnpause(ctx, c.ID)
	case cluster.Isolate:
		if !attached {
			return nil
		}
		return cli.NetworkDisconnect(ctx, netName, c.ID, false)
	case cluster.Rejoin:
		if attached {
			return nil
		}
		aliases := strings.Split(c.Labels[labelAliases], ",")
		return cli.NetworkConnect(ctx, netName, c.ID, &network.EndpointSettings{
			IPAMConfig: &network.EndpointIPAMConfig{IPv4Address: c.Labels[labelIP]}, Aliases: aliases,
		})
	}
	return fmt.Errorf("unknown operation %q", op)
}

// waitExited waits until the container no longer runs.
func (b *Backend) waitExited(ctx context.Context, cli *client.Client, c container.Summary, timeout time.Duration, progress cluster.Progress) error {
	return poll.Until(ctx, 50*time.Millisecond, timeout, progress, func(ctx context.Context) (bool, string, error) {
		in, err := cli.ContainerInspect(ctx, c.ID)
		if err != nil {
			return false, "", err
		}
		return !in.State.Running, fmt.Sprintf("waiting for %s to exit", c.Labels[labelNode]), nil
	})
}

// Logs opens a node's broker log: its container's output, stdout and
// stderr merged.
func (b *Backend) Logs(ctx context.Context, node string) (io.ReadCloser, error) {
	cli, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := b.containers(ctx, cli)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		if c.Labels[labelNode] == node {
			return containerLog(ctx, cli, c.ID)
		}
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("no Docker cluster %q is up", b.name)
	}
	return nil, fmt.Errorf("no node %q in cluster %q", node, b.name)
}

func containerLog(ctx context.Context, cli *client.Client, id string) (io.ReadCloser, error) {
	rc, err := cli.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := stdcopy.StdCopy(pw, pw, rc)
		rc.Close()
		pw.CloseWithError(err)
	}()
	return readCloser{pr, func() error { rc.Close(); return pr.Close() }}, nil
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

// logTail is the end of a node's log, for error messages.
func (b *Backend) logTail(ctx context.Context, node string, lines int) string {
	rc, err := b.Logs(context.WithoutCancel(ctx), node)
	if err != nil {
		return ""
	}
	defer rc.Close()
	data, _ := io.ReadAll(io.LimitReader(rc, 16<<20))
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return fmt.Sprintf("--- %s container log (last %d lines)\n%s\n", node, lines, strings.Join(all, "\n"))
}

// Down removes the cluster's containers (with their anonymous volumes),
// its networks and volumes — everything with its labels, nothing else —
// then checks that none remains. With nothing to remove it succeeds.
func (b *Backend) Down(ctx context.Context, progress cluster.Progress) error {
	cli, err := b.client(ctx)
	if err != nil {
		return err
	}
	var errs []error
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: b.filter()})
	if err != nil {
		return err
	}
	for _, c := range cs {
		progress("removing container %s", strings.TrimPrefix(c.Names[0], "/"))
		if err := cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !client.IsErrNotFound(err) {
			errs = append(errs, err)
		}
	}
	nets, err := cli.NetworkList(ctx, network.ListOptions{Filters: b.filter()})
	if err != nil {
		return err
	}
	for _, n := range nets {
		if err := cli.NetworkRemove(ctx, n.ID); err != nil && !client.IsErrNotFound(err) {
			errs = append(errs, err)
		}
	}
	vols, err := cli.VolumeList(ctx, volume.ListOptions{Filters: b.filter()})
	if err != nil {
		return err
	}
	for _, v := range vols.Volumes {
		if err := cli.VolumeRemove(ctx, v.Name, true); err != nil && !client.IsErrNotFound(err) {
			errs = append(errs, err)
		}
	}
	left, err := b.Leftovers(ctx)
	if err != nil {
		return err
	}
	if len(left) == 0 {
		return nil
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "Docker cluster %s is not fully removed; what remains:\n", b.name)
	for _, l := range left {
		fmt.Fprintf(&msg, "  - %s\n", l)
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(&msg, "errors: %v\n", err)
	}
	fmt.Fprintf(&msg, "then run `kafkabook cluster down --backend docker --name %s` again: it retries", b.name)
	return errors.New(msg.String())
}

// Leftovers lists what of the cluster exists: containers, networks,
// volumes, each with the command that removes it.
func (b *Backend) Leftovers(ctx context.Context) ([]string, error) {
	cli, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: b.filter()})
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		out = append(out, fmt.Sprintf("container %s: remove with `docker rm -f %s`", strings.TrimPrefix(c.Names[0], "/"), c.ID[:12]))
	}
	nets, err := cli.NetworkList(ctx, network.ListOptions{Filters: b.filter()})
	if err != nil {
		return nil, err
	}
	for _, n := range nets {
		out = append(out, fmt.Sprintf("network %s: remove with `docker network rm %s`", n.Name, n.ID[:12]))
	}
	vols, err := cli.VolumeList(ctx, volume.ListOptions{Filters: b.filter()})
	if err != nil {
		return nil, err
	}
	for _, v := range vols.Volumes {
		out = append(out, fmt.Sprintf("volume %s: remove with `docker volume rm %s`", v.Name, v.Name))
	}
	return out, nil
}
