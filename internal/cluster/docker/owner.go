package docker

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/kafkabook/kafkabook/internal/procstat"
)

// owner is the process that started a cluster, as its label
// kafkabook.owner holds it: "PID START".
type owner struct{ procstat.Proc }

func (o owner) String() string { return fmt.Sprintf("%d %d", o.PID, o.Start) }

func parseOwner(s string) owner {
	var o owner
	fmt.Sscanf(s, "%d %d", &o.PID, &o.Start)
	return o
}

func self() owner { return owner{procstat.Self()} }

// Info describes one Docker cluster for `cluster list`.
type Info struct {
	Name       string
	State      string // up, partly up, down
	Created    time.Time
	Nodes      int
	NodesUp    int
	Kafka      string
	OwnerPID   int
	OwnerAlive bool
	Kept       bool
	Remove     string
}

// List describes every Docker cluster of this state root: those with a
// container, and the remains (network, volumes) of others.
func List(ctx context.Context) ([]Info, error) {
	b, err := New("list", Options{})
	if err != nil {
		return nil, err
	}
	cli, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	root := filters.Arg("label", labelRoot+"="+b.root)
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(root)})
	if err != nil {
		return nil, err
	}
	byName := map[string]*Info{}
	get := func(name string) *Info {
		if byName[name] == nil {
			byName[name] = &Info{Name: name, State: "down", Remove: "kafkabook cluster down --backend docker --name " + name}
		}
		return byName[name]
	}
	for _, c := range cs {
		in := get(c.Labels[labelCluster])
		if c.Labels[labelNode] == "" {
			continue
		}
		in.Nodes++
		if c.State == container.StateRunning || c.State == container.StatePaused {
			in.NodesUp++
		}
		in.Kafka = c.Labels[labelKafka]
		in.Kept = c.Labels[labelKept] == "true"
		o := parseOwner(c.Labels[labelOwner])
		in.OwnerPID, in.OwnerAlive = o.PID, o.Alive()
		in.Created, _ = time.Parse(time.RFC3339, c.Labels[labelCreated])
	}
	nets, _ := cli.NetworkList(ctx, network.ListOptions{Filters: filters.NewArgs(root)})
	for _, n := range nets {
		get(n.Labels[labelCluster])
	}
	vols, _ := cli.VolumeList(ctx, volume.ListOptions{Filters: filters.NewArgs(root)})
	for _, v := range vols.Volumes {
		get(v.Labels[labelCluster])
	}
	var out []Info
	for _, in := range byName {
		switch {
		case in.Nodes > 0 && in.NodesUp == in.Nodes:
			in.State = "up"
		case in.NodesUp > 0:
			in.State = "partly up"
		}
		out = append(out, *in)
	}
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Reaped is a cluster that Reap removed, or failed to.
type Reaped struct {
	Name     string
	OwnerPID int
	Err      error
}

// Reap removes the Docker clusters of this state root that were private to
// a process that is gone (a killed `kafkabook run`). Without a daemon there
// is nothing to do.
func Reap(ctx context.Context) []Reaped {
	if !DaemonRunning(ctx) {
		return nil
	}
	infos, err := List(ctx)
	if err != nil {
		return nil
	}
	var out []Reaped
	for _, in := range infos {
		if in.Kept || in.OwnerPID == 0 || in.OwnerAlive {
			continue
		}
		b, err := New(in.Name, Options{})
		if err == nil {
			err = b.Down(ctx, func(string, ...any) {})
		}
		out = append(out, Reaped{Name: in.Name, OwnerPID: in.OwnerPID, Err: err})
	}
	return out
}
