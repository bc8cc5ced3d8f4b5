package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/kafkabook/kafkabook/internal/cluster"
)

// Down removes the cluster's containers (with their anonymous volumes),
// its networks and volumes — everything with its labels, nothing else —
// then checks that none remains. With nothing to remove it succeeds.
func (b *Backend) Down(ctx context.Context, progress cluster.Progress) error {
	cli, err := b.client(ctx)
	if err != nil {
		return err
	}
	var errs []error
	if err := b.stopDelayers(ctx, ""); err != nil {
		errs = append(errs, err)
	}
	if err := os.RemoveAll(filepath.Dir(b.delayerLog(""))); err != nil {
		errs = append(errs, err)
	}
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: b.filter()})
	if err != nil {
		return err
	}
	for _, c := range cs {
		progress("removing container %s", strings.TrimPrefix(c.Names[0], "/"))
		if err := cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	nets, err := cli.NetworkList(ctx, network.ListOptions{Filters: b.filter()})
	if err != nil {
		return err
	}
	for _, n := range nets {
		if err := cli.NetworkRemove(ctx, n.ID); err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	vols, err := cli.VolumeList(ctx, volume.ListOptions{Filters: b.filter()})
	if err != nil {
		return err
	}
	for _, v := range vols.Volumes {
		if err := cli.VolumeRemove(ctx, v.Name, true); err != nil && !cerrdefs.IsNotFound(err) {
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
	for _, pid := range b.delayers("") {
		out = append(out, fmt.Sprintf("link delayer (pid %d): stop with `kill %d`", pid, pid))
	}
	if _, err := os.Stat(filepath.Dir(b.delayerLog(""))); err == nil {
		out = append(out, fmt.Sprintf("the delayers' logs in %s: remove with `rm -r %s`", filepath.Dir(b.delayerLog("")), filepath.Dir(b.delayerLog(""))))
	}
	return out, nil
}
