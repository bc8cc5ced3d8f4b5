package docker

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/internal/cluster"
)

// A cluster started with cluster.Config.Clock runs kafkabook's image
// (whose Debian base holds libfaketime, linked at cluster.ImageFaketimeLib)
// with cluster.FaketimeEnv in every node's environment, reading the node's
// offset from clockFile inside its container. The file is the offset's
// only record: a node's container keeps it across stops and starts, and
// kafkabook reads it back from there, so a stopped node gets an offset
// too and starts on it, as on a machine whose clock is off.

// clockFile is where a node's broker reads its offset. No file is no
// offset: a new container runs on the host's clock.
const clockFile = "/etc/kafkabook/clock"

var _ cluster.Clocks = (*Backend)(nil)

// clockEnv is the environment a node's container adds in a cluster with
// Clock.
func clockEnv() []string { return cluster.FaketimeEnv(cluster.ImageFaketimeLib, clockFile) }

// applyClock puts clockEnv into every node's environment.
func (p *project) applyClock() {
	for i := range p.Nodes {
		env := maps.Clone(p.Nodes[i].Service.Environment)
		for _, kv := range clockEnv() {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = &v
		}
		p.Nodes[i].Service.Environment = env
	}
}

// hasClock says whether a container was made with clockEnv.
func hasClock(env []string) bool {
	return slices.Contains(env, "FAKETIME_TIMESTAMP_FILE="+clockFile)
}

// Clock moves the named nodes' wall clocks by jump, or puts them right.
func (b *Backend) Clock(ctx context.Context, names []string, jump time.Duration, reset bool) ([]cluster.ClockState, error) {
	var out []cluster.ClockState
	for _, name := range names {
		cli, c, err := b.container(ctx, name)
		if err != nil {
			return out, err
		}
		in, err := cli.ContainerInspect(ctx, c.ID)
		if err != nil {
			return out, err
		}
		if in.Config == nil || !hasClock(in.Config.Env) {
			return out, cluster.NoClock(b.name)
		}
		was, err := readClock(ctx, cli, c.ID)
		if err != nil {
			return out, fmt.Errorf("clock %s: %w", name, err)
		}
		off, err := cluster.NextOffset(name, was, jump, reset)
		if err != nil {
			return out, err
		}
		if err := writeClock(ctx, cli, c.ID, in.State != nil && in.State.Running, off); err != nil {
			return out, fmt.Errorf("clock %s: %w", name, err)
		}
		out = append(out, cluster.ClockState{Node: name, Offset: off})
	}
	return out, nil
}

// ClockStates is every node's offset; none for a cluster without Clock.
func (b *Backend) ClockStates(ctx context.Context) ([]cluster.ClockState, error) {
	cli, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := b.containers(ctx, cli)
	if err != nil {
		return nil, err
	}
	var out []cluster.ClockState
	for _, c := range cs {
		in, err := cli.ContainerInspect(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		if in.Config == nil || !hasClock(in.Config.Env) {
			continue
		}
		off, err := readClock(ctx, cli, c.ID)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Labels[labelNode], err)
		}
		out = append(out, cluster.ClockState{Node: c.Labels[labelNode], Offset: off})
	}
	return out, nil
}

// readClock reads the offset in container id's clock file, running or
// not; no file is no offset.
func readClock(ctx context.Context, cli *client.Client, id string) (time.Duration, error) {
	rc, _, err := cli.CopyFromContainer(ctx, id, clockFile)
	if cerrdefs.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	if _, err := tr.Next(); err != nil {
		return 0, fmt.Errorf("reading %s: %w", clockFile, err)
	}
	data, err := io.ReadAll(io.LimitReader(tr, 64))
	if err != nil {
		return 0, err
	}
	return cluster.ParseClock(string(data))
}

// writeClock puts off in container id's clock file. In a running
// container the file changes by a rename, as its broker may read it at
// any moment (cluster.FaketimeEnv); a stopped one gets it copied in.
func writeClock(ctx context.Context, cli *client.Client, id string, running bool, off time.Duration) error {
	text := cluster.ClockText(off)
	if !running {
		return copyFile(ctx, cli, id, clockFile, []byte(text), 0o644)
	}
	// $0 is the text: the shell is given it as an argument, never as code.
	script := `printf '%s\n' "$0" > ` + clockFile + `.new && mv -f ` + clockFile + `.new ` + clockFile
	out, code, err := execIn(ctx, cli, id, "root", []string{"sh", "-c", script, strings.TrimSpace(text)})
	if err != nil {
		return err
	}
	if code != 0 {
		return errors.New("writing " + clockFile + ": " + strings.TrimSpace(out))
	}
	return nil
}
