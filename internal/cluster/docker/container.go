package docker

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/docker/go-connections/nat"
)

// createNode creates node n's container from its service, labelled with
// the cluster's labels, the service's and extra, with the service's
// configs copied in.
func (b *Backend) createNode(ctx context.Context, cli *client.Client, p *project, n node, image string, extra map[string]string) (string, error) {
	svc := n.Service
	labels := b.labels()
	maps.Copy(labels, svc.Labels)
	maps.Copy(labels, extra)
	aliases := append([]string{n.Name}, svc.Networks[n.Network].Aliases...)
	labels[labelAliases] = strings.Join(aliases, ",")
	var targets []string
	for _, ref := range svc.Configs {
		targets = append(targets, configTarget(ref))
	}
	labels[labelConfigs] = strings.Join(targets, ",")
	cfg, hc, err := containerConfig(p, n, image, labels)
	if err != nil {
		return "", err
	}
	nw := &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
		p.Networks[n.Network].Name: {IPAMConfig: &network.EndpointIPAMConfig{IPv4Address: n.IP}, Aliases: aliases},
	}}
	name := p.Name + "-" + n.Name
	resp, err := cli.ContainerCreate(ctx, cfg, hc, nw, nil, name)
	if err != nil {
		return "", fmt.Errorf("create container %s: %w", name, err)
	}
	if err := copyConfigs(ctx, cli, p, n, resp.ID, name); err != nil {
		return "", err
	}
	return resp.ID, nil
}

// containerConfig is what node n's service asks of its container:
// hostname, environment, entrypoint, ports and mounts.
func containerConfig(p *project, n node, image string, labels map[string]string) (*container.Config, *container.HostConfig, error) {
	svc := n.Service
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
		port := nat.Port(fmt.Sprintf("%d/%s", pc.Target, cmp.Or(pc.Protocol, "tcp")))
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
			return nil, nil, fmt.Errorf("compose file: service %s: volume type %q is not supported", n.Name, v.Type)
		}
	}
	cfg := &container.Config{
		Hostname: cmp.Or(svc.Hostname, n.Name), Image: image, Env: env, Labels: labels, ExposedPorts: exposed,
		Entrypoint: []string(svc.Entrypoint), Cmd: []string(svc.Command), User: svc.User,
	}
	hc := &container.HostConfig{PortBindings: bindings, Mounts: mounts, RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyDisabled}}
	return cfg, hc, nil
}

// copyConfigs copies the configs node n's service names into its
// container id (called name), at their targets (default /SOURCE) and modes
// (default read-only).
func copyConfigs(ctx context.Context, cli *client.Client, p *project, n node, id, name string) error {
	for _, ref := range n.Service.Configs {
		c, ok := p.Configs[ref.Source]
		if !ok {
			return fmt.Errorf("compose file: service %s uses config %q, which is not defined", n.Name, ref.Source)
		}
		content, err := configContent(types.FileObjectConfig(c))
		if err != nil {
			return fmt.Errorf("config %s: %w", ref.Source, err)
		}
		mode := int64(0o444)
		if ref.Mode != nil {
			mode = int64(*ref.Mode)
		}
		if err := copyFile(ctx, cli, id, configTarget(ref), content, mode); err != nil {
			return fmt.Errorf("copy config %s into %s: %w", ref.Source, name, err)
		}
	}
	return nil
}

// configTarget is where a config goes in the container: its target, by
// default /SOURCE.
func configTarget(ref types.ServiceConfigObjConfig) string {
	return cmp.Or(ref.Target, "/"+ref.Source)
}
