package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/internal/cluster"
)

// A node moves to another Kafka release, or takes settings of its own, as
// an operator does it with Docker: its container is replaced by one on the
// other image (or with the other environment), on the same volume, name,
// address and ports. Release and Configure only note the change; the
// node's next start (restart, roll) makes the new container.

// nextStart is what a node's next start changes.
type nextStart struct {
	image, version string            // another image, for release version
	set            map[string]string // settings of its own, on top of the cluster's
}

var (
	_ cluster.Releaser   = (*Backend)(nil)
	_ cluster.Configurer = (*Backend)(nil)
)

// Release makes node start on Kafka version from its next start: on the
// image the cluster's image names for that release (apache/kafka:VERSION
// when this host has it, else kafkabook/kafka:VERSION built here, else a
// pull), found before the node goes down.
func (b *Backend) Release(ctx context.Context, node, version string, progress cluster.Progress) error {
	if b.opts.Image != "" {
		return fmt.Errorf("restart --to: --image %s names one image for every release; leave it out, so that each release runs on its own image", b.opts.Image)
	}
	cli, c, err := b.container(ctx, node)
	if err != nil {
		return err
	}
	image, err := b.image(ctx, cli, retag(c.Image, version), version, progress)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	next := b.next[node]
	next.image, next.version = image, version
	b.setNext(node, next)
	return nil
}

// Configure gives node settings of its own from its next start, as
// KAFKA_* variables of its container's environment.
func (b *Backend) Configure(ctx context.Context, node string, set map[string]string) error {
	if _, _, err := b.container(ctx, node); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	next := b.next[node]
	next.set = maps.Clone(set)
	b.setNext(node, next)
	return nil
}

// setNext records node's next start; b.mu is held.
func (b *Backend) setNext(node string, next nextStart) {
	if b.next == nil {
		b.next = map[string]nextStart{}
	}
	b.next[node] = next
}

// takeNext returns and forgets what node's next start changes.
func (b *Backend) takeNext(node string) (nextStart, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	next, ok := b.next[node]
	delete(b.next, node)
	return next, ok
}

// container finds node's container.
func (b *Backend) container(ctx context.Context, node string) (*client.Client, container.Summary, error) {
	cli, err := b.client(ctx)
	if err != nil {
		return nil, container.Summary{}, err
	}
	cs, err := b.containers(ctx, cli)
	if err != nil {
		return nil, container.Summary{}, err
	}
	for _, c := range cs {
		if c.Labels[labelNode] == node {
			return cli, c, nil
		}
	}
	return nil, container.Summary{}, fmt.Errorf("no node %q in Docker cluster %q", node, b.name)
}

// retag is image with its tag replaced by version: apache/kafka:4.2.2 for
// 4.3.1 is apache/kafka:4.3.1.
func retag(image, version string) string {
	if i := strings.LastIndexByte(image, ':'); i > strings.LastIndexByte(image, '/') {
		image = image[:i]
	}
	return image + ":" + version
}

// recreate replaces node c's stopped container by one that differs as
// next says: the same configuration, volumes, name, address, aliases and
// ports, the files copied into the old one copied into the new one.
func (b *Backend) recreate(ctx context.Context, cli *client.Client, c container.Summary, next nextStart) (string, error) {
	old, err := cli.ContainerInspect(ctx, c.ID)
	if err != nil {
		return "", err
	}
	if old.State != nil && old.State.Running {
		return "", fmt.Errorf("%s still runs: it must be stopped before it moves", c.Labels[labelNode])
	}
	targets, ok := old.Config.Labels[labelConfigs]
	if !ok {
		return "", fmt.Errorf("%s was made by an older kafkabook, which did not record the files it copied in: take the cluster down and start it again", c.Labels[labelNode])
	}
	name := strings.TrimPrefix(old.Name, "/")
	cfg := *old.Config
	cfg.Labels = maps.Clone(old.Config.Labels)
	if next.version != "" {
		cfg.Image = next.image
		cfg.Labels[labelNodeKafka] = next.version
	}
	if next.set != nil {
		own := map[string]string{}
		if l := cfg.Labels[labelNodeBroker]; l != "" {
			_ = json.Unmarshal([]byte(l), &own) // written by this file
		}
		maps.Copy(own, next.set)
		data, _ := json.Marshal(own) // a map of strings always encodes
		cfg.Labels[labelNodeBroker] = string(data)
		cfg.Env = setEnv(cfg.Env, next.set)
	}
	nw := &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
		c.Labels[labelNetwork]: {IPAMConfig: &network.EndpointIPAMConfig{IPv4Address: c.Labels[labelIP]}, Aliases: strings.Split(c.Labels[labelAliases], ",")},
	}}
	// The old container keeps its files until the new one has them.
	if err := cli.ContainerRename(ctx, c.ID, name+"-old"); err != nil {
		return "", err
	}
	resp, err := cli.ContainerCreate(ctx, &cfg, old.HostConfig, nw, nil, name)
	if err != nil {
		_ = cli.ContainerRename(ctx, c.ID, name)
		return "", fmt.Errorf("create container %s on %s: %w", name, cfg.Image, err)
	}
	if err := copyBetween(ctx, cli, c.ID, resp.ID, targets); err != nil {
		return "", err
	}
	if hasClock(cfg.Env) {
		// The node keeps its clock's offset, as a machine does.
		off, err := readClock(ctx, cli, c.ID)
		if err == nil && off != 0 {
			err = writeClock(ctx, cli, resp.ID, false, off)
		}
		if err != nil {
			return "", fmt.Errorf("%s's clock: %w", c.Labels[labelNode], err)
		}
	}
	if err := b.keepLog(ctx, cli, c.ID, c.Labels[labelNode]); err != nil {
		return "", err
	}
	if err := cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{}); err != nil {
		return "", err
	}
	return resp.ID, nil
}

// setEnv is env with each setting's KAFKA_* variable set.
func setEnv(env []string, set map[string]string) []string {
	out := slices.Clone(env)
	for _, k := range slices.Sorted(maps.Keys(set)) {
		key := envKey(k)
		out = slices.DeleteFunc(out, func(e string) bool { return strings.HasPrefix(e, key+"=") })
		out = append(out, key+"="+set[k])
	}
	return out
}

// copyBetween copies the files at targets (comma-separated, as
// labelConfigs lists them) from container from into container to.
func copyBetween(ctx context.Context, cli *client.Client, from, to, targets string) error {
	for _, t := range strings.Split(targets, ",") {
		if t == "" {
			continue
		}
		rc, _, err := cli.CopyFromContainer(ctx, from, t)
		if err != nil {
			return fmt.Errorf("copy %s out of container %.12s: %w", t, from, err)
		}
		err = cli.CopyToContainer(ctx, to, path.Dir(t), rc, container.CopyToContainerOptions{})
		rc.Close()
		if err != nil {
			return fmt.Errorf("copy %s into container %.12s: %w", t, to, err)
		}
	}
	return nil
}

// keepLog keeps what container id of node logged, before it goes.
func (b *Backend) keepLog(ctx context.Context, cli *client.Client, id, node string) error {
	rc, err := containerLog(ctx, cli, id)
	if err != nil {
		return fmt.Errorf("reading the log of %s before its container goes: %w", node, err)
	}
	return b.earlier.Keep(node, rc)
}
