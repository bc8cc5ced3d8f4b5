package docker

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
)

// Up starts the cluster. What an earlier cluster of the same name left
// behind (its owner died, or a crash) is removed first; one that is up, or
// private to a process that still runs, is an error.
func (b *Backend) Up(ctx context.Context, cfg cluster.Config, progress cluster.Progress) (cluster.Status, error) {
	start := time.Now()
	if cfg.Ready == nil {
		return cluster.Status{}, cluster.ErrNoReady
	}
	cli, err := b.client(ctx)
	if err != nil {
		return cluster.Status{}, err
	}
	if cfg.Kafka == "" {
		cfg.Kafka = kafkadist.Default
	}
	if err := b.checkExisting(ctx, cli, progress); err != nil {
		return cluster.Status{}, err
	}
	p, err := b.plan(ctx, cli, cfg)
	if err != nil {
		return cluster.Status{}, err
	}
	want := p.Nodes[0].Service.Image
	if cfg.Quorum == cluster.QuorumDynamic || cfg.Clock {
		// Only kafkabook/kafka's entrypoint formats the initial voters,
		// and only its base holds libfaketime.
		want = ImageName(cfg.Kafka)
	}
	image, err := b.image(ctx, cli, want, cfg.Kafka, progress)
	if err != nil {
		return cluster.Status{}, err
	}
	if cfg.Quorum == cluster.QuorumDynamic {
		if image != ImageName(cfg.Kafka) {
			return cluster.Status{}, fmt.Errorf("a dynamic controller quorum needs the image `kafkabook image build --kafka %s` makes (%s), whose entrypoint formats the initial voters; %s does not", cfg.Kafka, ImageName(cfg.Kafka), image)
		}
		if err := p.applyQuorum(); err != nil {
			return cluster.Status{}, err
		}
	}
	if cfg.Clock {
		if image != ImageName(cfg.Kafka) {
			return cluster.Status{}, fmt.Errorf("a clock step needs the image `kafkabook image build --kafka %s` makes (%s), whose base holds libfaketime; %s does not", cfg.Kafka, ImageName(cfg.Kafka), image)
		}
		p.applyClock()
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
			return fmt.Errorf("the Docker cluster %q belongs to kafkabook state %s (container %s): pick another --name, or take it down with KAFKABOOK_STATE=%s kafkabook cluster down --backend docker --name %s",
				b.name, c.Labels[labelRoot], strings.TrimPrefix(c.Names[0], "/"), c.Labels[labelRoot], b.name)
		}
		mine++
		o := parseOwner(c.Labels[labelOwner])
		switch {
		case c.Labels[labelKept] != "true" && o.Alive() && !o.IsSelf():
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
	taken, err := takenPorts(ctx, cli)
	if err != nil {
		return nil, err
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

// takenPorts are the host ports of every kafkabook container: a stopped
// or killed node's container holds no port, but gets its port back when
// started.
func takenPorts(ctx context.Context, cli *client.Client) (map[string]bool, error) {
	taken := map[string]bool{}
	all, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", labelCluster))})
	if err != nil {
		return nil, err
	}
	for _, c := range all {
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
	return taken, nil
}

// create makes the network, volumes and containers, starts them and waits
// for the brokers.
func (b *Backend) create(ctx context.Context, cli *client.Client, p *project, cfg cluster.Config, image string, progress cluster.Progress) (cluster.Status, error) {
	netName, err := b.createNetwork(ctx, cli, p)
	if err != nil {
		return cluster.Status{}, err
	}
	broker, _ := json.Marshal(cfg.Broker) // a map of strings always encodes
	created := time.Now().UTC().Format(time.RFC3339)
	var ids []string
	for _, n := range p.Nodes {
		id, err := b.createNode(ctx, cli, p, n, image, map[string]string{
			labelNode: n.Name, labelNodeID: strconv.Itoa(n.ID), labelKafka: cfg.Kafka,
			labelBroker: string(broker), labelAddress: "localhost:" + n.HostPort,
			labelNetwork: netName, labelIP: n.IP, labelOwner: self().String(),
			labelKept: strconv.FormatBool(cfg.Keep), labelCreated: created, labelQuorum: cmp.Or(cfg.Quorum, cluster.QuorumStatic),
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
	return b.waitReady(ctx, cfg.Ready, progress)
}

// createNetwork makes the cluster's network and volumes as the compose
// file describes them, and returns the network's name.
func (b *Backend) createNetwork(ctx context.Context, cli *client.Client, p *project) (string, error) {
	nc := p.Networks[p.Nodes[0].Network]
	ipam := &network.IPAM{Driver: nc.Ipam.Driver}
	for _, pool := range nc.Ipam.Config {
		ipam.Config = append(ipam.Config, network.IPAMConfig{Subnet: pool.Subnet, Gateway: pool.Gateway, IPRange: pool.IPRange})
	}
	if _, err := cli.NetworkCreate(ctx, nc.Name, network.CreateOptions{
		Driver: cmp.Or(nc.Driver, "bridge"), IPAM: ipam, Options: nc.DriverOpts, Labels: b.labels(), Internal: nc.Internal,
	}); err != nil {
		return "", fmt.Errorf("create network %s: %w", nc.Name, err)
	}
	for key, v := range p.Volumes {
		if _, err := cli.VolumeCreate(ctx, volume.CreateOptions{Name: v.Name, Driver: v.Driver, DriverOpts: v.DriverOpts, Labels: b.labels()}); err != nil {
			return "", fmt.Errorf("create volume %s (%s): %w", v.Name, key, err)
		}
	}
	return nc.Name, nil
}

// waitReady waits until every node's broker is registered and unfenced,
// failing early when a container exits, and returns the cluster's status.
func (b *Backend) waitReady(ctx context.Context, ready cluster.Ready, progress cluster.Progress) (cluster.Status, error) {
	st, err := b.Status(ctx)
	if err != nil {
		return cluster.Status{}, err
	}
	dead := func(ctx context.Context) string { return cluster.FirstDown(ctx, b) }
	tail := func(node string, lines int) string { return cluster.LogTail(ctx, b, node, "container log", lines) }
	if err := cluster.WaitBrokers(ctx, ready, cluster.Access{}, st.Nodes, dead, tail, progress); err != nil {
		return cluster.Status{}, err
	}
	return b.Status(ctx)
}
