package docker

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/go-connections/nat"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/runbook"
)

// A broker added to a Docker cluster is a container made as the first
// node's is — its image (the release asked for), environment, files and
// network — but as a broker alone: its own node id, address, host port
// and volume, no controller listener. It carries labelAdded, and goes,
// container and volume, when it is removed.

var _ cluster.Members = (*Backend)(nil)

// labelAdded marks a broker added after the cluster was made.
const labelAdded = "kafkabook.added"

// AddBroker starts a broker-only node with the next id on release version
// ("" the cluster's) and returns it; the caller waits for it to register.
func (b *Backend) AddBroker(ctx context.Context, version string, progress cluster.Progress) (cluster.Node, error) {
	return b.addNode(ctx, version, false, progress)
}

// addNode starts the next node on release version ("" the cluster's): a
// broker alone, or (controller) a broker and controller formatted to join
// a dynamic quorum as an observer.
func (b *Backend) addNode(ctx context.Context, version string, controller bool, progress cluster.Progress) (cluster.Node, error) {
	cli, err := b.client(ctx)
	if err != nil {
		return cluster.Node{}, err
	}
	cs, err := b.containers(ctx, cli)
	if err != nil {
		return cluster.Node{}, err
	}
	if len(cs) == 0 {
		return cluster.Node{}, fmt.Errorf("no Docker cluster %q is up", b.name)
	}
	first, err := cli.ContainerInspect(ctx, cs[0].ID)
	if err != nil {
		return cluster.Node{}, err
	}
	last, _ := strconv.Atoi(cs[len(cs)-1].Labels[labelNodeID])
	id := last + 1
	name := runbook.NodeName(id)
	ip, err := nextIP(cs)
	if err != nil {
		return cluster.Node{}, err
	}
	if version == "" {
		version = cs[0].Labels[labelKafka]
	}
	image := b.opts.Image
	if image == "" {
		if image, err = b.image(ctx, cli, retag(first.Config.Image, version), version, progress); err != nil {
			return cluster.Node{}, err
		}
	} else if version != cs[0].Labels[labelKafka] {
		return cluster.Node{}, fmt.Errorf("broker add --kafka %s: --image %s names one image for every release; leave it out, so that each release runs on its own image", version, b.opts.Image)
	}
	taken, err := takenPorts(ctx, cli)
	if err != nil {
		return cluster.Node{}, err
	}
	// The compose file's ports go 19092, 29092, 39092: k4 asks for 49092.
	port, err := freePort(strconv.Itoa(id*10000+9092), taken)
	if err != nil {
		return cluster.Node{}, err
	}
	vol := b.projectName() + "_" + name + "-data"
	if _, err := cli.VolumeCreate(ctx, volume.CreateOptions{Name: vol, Labels: b.labels()}); err != nil {
		return cluster.Node{}, fmt.Errorf("create volume %s: %w", vol, err)
	}
	oldIP, oldAddr := cs[0].Labels[labelIP], cs[0].Labels[labelAddress]
	cfg := *first.Config
	cfg.Image, cfg.Hostname = image, name
	cfg.Env = nodeEnv(first.Config.Env, id, controller, oldIP, ip, oldAddr, "localhost:"+port)
	cfg.Labels = maps.Clone(first.Config.Labels)
	maps.Copy(cfg.Labels, map[string]string{
		labelNode: name, labelNodeID: strconv.Itoa(id), labelAddress: "localhost:" + port, labelIP: ip,
		labelAliases: name, labelAdded: "true", labelCreated: time.Now().UTC().Format(time.RFC3339),
	})
	delete(cfg.Labels, labelNodeBroker)
	delete(cfg.Labels, labelNodeKafka)
	if version != cs[0].Labels[labelKafka] {
		cfg.Labels[labelNodeKafka] = version
	}
	hc := *first.HostConfig
	hc.PortBindings = nat.PortMap{}
	for p := range first.HostConfig.PortBindings {
		hc.PortBindings[p] = []nat.PortBinding{{HostPort: port}}
	}
	hc.Mounts = nil
	for _, m := range first.HostConfig.Mounts {
		if m.Type == mount.TypeVolume {
			m.Source = vol
		}
		hc.Mounts = append(hc.Mounts, m)
	}
	hc.Binds = nil
	nw := &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
		cs[0].Labels[labelNetwork]: {IPAMConfig: &network.EndpointIPAMConfig{IPv4Address: ip}, Aliases: []string{name}},
	}}
	cname := b.projectName() + "-" + name
	progress("%s: container %s on %s at %s", name, cname, image, ip)
	resp, err := cli.ContainerCreate(ctx, &cfg, &hc, nw, nil, cname)
	if err != nil {
		return cluster.Node{}, fmt.Errorf("create container %s: %w", cname, err)
	}
	if err := copyBetween(ctx, cli, first.ID, resp.ID, first.Config.Labels[labelConfigs]); err != nil {
		return cluster.Node{}, err
	}
	if err := cli.ContainerStart(ctx, resp.ID, container.StartOptions{}); err != nil {
		return cluster.Node{}, fmt.Errorf("start %s: %w", cname, err)
	}
	kafka := ""
	if version != cs[0].Labels[labelKafka] {
		kafka = version
	}
	return cluster.Node{Name: name, ID: id, Address: "localhost:" + port, State: cluster.Running, Kafka: kafka, Added: true}, nil
}

// RemoveBroker shuts an added broker down cleanly and removes its
// container and volume; the caller unregisters it.
func (b *Backend) RemoveBroker(ctx context.Context, node string, progress cluster.Progress) error {
	cli, c, err := b.container(ctx, node)
	if err != nil {
		return err
	}
	if c.Labels[labelAdded] != "true" {
		return fmt.Errorf("broker remove %s: only a broker added by broker add can go on the docker backend (the compose file's nodes are its static quorum's controllers)", node)
	}
	if err := b.Apply(ctx, cluster.Stop, []string{node}, progress); err != nil {
		return err
	}
	in, err := cli.ContainerInspect(ctx, c.ID)
	if err != nil {
		return err
	}
	if err := b.keepLog(ctx, cli, c.ID, node); err != nil {
		return err
	}
	if err := cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{}); err != nil {
		return fmt.Errorf("remove the container of %s: %w", node, err)
	}
	for _, m := range in.Mounts {
		if m.Type == mount.TypeVolume {
			if err := cli.VolumeRemove(ctx, m.Name, false); err != nil {
				return fmt.Errorf("remove the volume of %s: %w", node, err)
			}
		}
	}
	return nil
}

// nodeEnv is the first node's environment made an added node's: its id,
// its own address and host port, and either no controller role or
// listener (a broker alone) or, for a controller, a format that joins
// the dynamic quorum as an observer.
func nodeEnv(env []string, id int, controller bool, oldIP, ip, oldAddr, addr string) []string {
	vars := map[string]string{}
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		vars[k] = v
	}
	vars["KAFKA_NODE_ID"] = strconv.Itoa(id)
	delete(vars, "KAFKABOOK_INITIAL_CONTROLLERS")
	adv := vars["KAFKA_ADVERTISED_LISTENERS"]
	adv = strings.ReplaceAll(adv, oldAddr, addr)
	vars["KAFKA_ADVERTISED_LISTENERS"] = strings.ReplaceAll(adv, "//"+oldIP+":", "//"+ip+":")
	if controller {
		vars["KAFKABOOK_NO_INITIAL_CONTROLLERS"] = "true"
	} else {
		vars["KAFKA_PROCESS_ROLES"] = "broker"
		ctl := strings.Split(vars["KAFKA_CONTROLLER_LISTENER_NAMES"], ",")
		for _, key := range []string{"KAFKA_LISTENERS", "KAFKA_ADVERTISED_LISTENERS"} {
			var keep []string
			for _, l := range strings.Split(vars[key], ",") {
				if name, _, _ := strings.Cut(l, "://"); !slices.Contains(ctl, name) {
					keep = append(keep, l)
				}
			}
			vars[key] = strings.Join(keep, ",")
		}
	}
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
}

// nextIP is the address after the highest node's on the cluster network.
func nextIP(cs []container.Summary) (string, error) {
	var top net.IP
	for _, c := range cs {
		ip := net.ParseIP(c.Labels[labelIP]).To4()
		if ip != nil && (top == nil || string(ip) > string(top)) {
			top = ip
		}
	}
	if top == nil || top[3] >= 254 {
		return "", fmt.Errorf("no free address after %v on the cluster's network", top)
	}
	next := slices.Clone(top)
	next[3]++
	return next.String(), nil
}
