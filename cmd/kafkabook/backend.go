package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/docker"
	"github.com/kafkabook/kafkabook/internal/cluster/external"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/spf13/pflag"
)

// backendFlags choose a cluster backend: --backend local|docker|external,
// for docker --image and --compose, for external --cluster-file.
type backendFlags struct {
	backend, image, compose string
	clusterFile             string
}

func (f *backendFlags) register(fs *pflag.FlagSet, starts bool) {
	fs.StringVar(&f.backend, "backend", "", "local (JVMs in network namespaces; needs root), docker (containers from compose.yaml) or external (a cluster kafkabook did not start: --cluster-file); default: local where it can run, else docker, or the backend of the named cluster")
	f.registerExternal(fs)
	if starts {
		f.registerDocker(fs)
	}
}

// registerDocker registers --image and --compose. A backticked word in a
// usage is the flag's value name to pflag (--image IMAGE), so commands are
// quoted with ' there.
func (f *backendFlags) registerDocker(fs *pflag.FlagSet) {
	fs.StringVar(&f.image, "image", "", "docker: the `IMAGE` to run (default apache/kafka:VERSION, else kafkabook/kafka:VERSION from 'kafkabook image build')")
	fs.StringVar(&f.compose, "compose", "", "docker: a compose `FILE` to read instead of the compose.yaml built into kafkabook")
}

// registerExternal registers --cluster-file.
func (f *backendFlags) registerExternal(fs *pflag.FlagSet) {
	fs.StringVar(&f.clusterFile, "cluster-file", "", "external: the YAML `FILE` describing a cluster kafkabook did not start (addresses, TLS trust, SASL identity with its password from the environment or a file, a command per fault); implies --backend external")
}

// check rejects flags that do not fit the backend; it returns the backend
// named, "" for automatic.
func (f *backendFlags) check() (string, error) {
	switch f.backend {
	case "", local.Name, docker.Name, external.Name:
	default:
		return "", usageErr("--backend %q: use local, docker or external", f.backend)
	}
	if f.clusterFile != "" && f.backend == "" {
		f.backend = external.Name
	}
	switch {
	case f.backend == external.Name && f.clusterFile == "":
		return "", usageErr("the external backend needs --cluster-file FILE: the cluster's addresses, security and fault commands (see `kafkabook help cluster`)")
	case f.backend != external.Name && f.clusterFile != "":
		return "", usageErr("--cluster-file is for --backend external")
	case f.backend == external.Name && (f.image != "" || f.compose != ""):
		return "", usageErr("--image and --compose are for --backend docker")
	case f.backend == external.Name:
		return external.Name, nil
	}
	if (f.image != "" || f.compose != "") && f.backend == local.Name {
		return "", usageErr("--image and --compose are for --backend docker")
	}
	if f.image != "" || f.compose != "" {
		return docker.Name, nil
	}
	return f.backend, nil
}

// localCanRun says why the local backend cannot run here ("" when it can).
func localCanRun() string {
	if os.Geteuid() != 0 {
		return "the local backend needs root (network namespaces)"
	}
	return ""
}

// newBackend returns backend kind's handle on cluster name.
func (f *backendFlags) newBackend(kind, name string) (cluster.Backend, error) {
	if kind == external.Name {
		b, err := external.New(f.clusterFile)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		return b, nil
	}
	if kind == docker.Name {
		b, err := docker.New(name, docker.Options{Image: f.image, ComposeFile: f.compose})
		if err != nil {
			return nil, usageErr("%v", err)
		}
		return b, nil
	}
	b, err := local.New(name)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return b, nil
}

// forNew returns the backend that starts a new cluster: the one named, else
// local where it can run, else docker; it says which it chose.
func (f *backendFlags) forNew(ctx context.Context, name string, progress cluster.Progress) (cluster.Backend, error) {
	kind, err := f.check()
	if err != nil {
		return nil, err
	}
	if kind == "" {
		kind = local.Name
		if why := localCanRun(); why != "" {
			kind = docker.Name
			progress("backend: docker (%s; choose with --backend)", why)
		} else {
			progress("backend: local (choose with --backend)")
		}
	}
	return f.newBackend(kind, name)
}

// forExisting returns the backend of an existing cluster: the one named,
// else the one that has a cluster of that name (local first), else local.
func (f *backendFlags) forExisting(ctx context.Context, name string) (cluster.Backend, error) {
	kind, err := f.check()
	if err != nil {
		return nil, err
	}
	if kind != "" {
		return f.newBackend(kind, name)
	}
	return f.find(ctx, name)
}

// find returns the backend that has a cluster called name (local first),
// else the local one.
func (f *backendFlags) find(ctx context.Context, name string) (cluster.Backend, error) {
	lb, err := f.newBackend(local.Name, name)
	if err != nil {
		return nil, err
	}
	if _, err := lb.Status(ctx); !errors.Is(err, cluster.ErrNotFound) {
		return lb, nil
	}
	if docker.DaemonRunning(ctx) {
		db, err := f.newBackend(docker.Name, name)
		if err != nil {
			return nil, err
		}
		if _, err := db.Status(ctx); err == nil {
			return db, nil
		}
	}
	return lb, nil
}

// backendName is a backend's name for provenance and messages.
func backendName(b cluster.Backend) string {
	switch b.(type) {
	case *docker.Backend:
		return docker.Name
	case *external.Backend:
		return external.Name
	}
	return local.Name
}

// listInfo is a cluster in `cluster list`: local's fields plus the backend.
type listInfo struct {
	local.Info
	Backend string `json:"backend"`
}

// listAll lists the clusters of both backends: docker's only when a daemon
// answers.
func listAll(ctx context.Context) ([]listInfo, error) {
	infos, err := local.List()
	if err != nil {
		return nil, err
	}
	out := []listInfo{}
	for _, in := range infos {
		out = append(out, listInfo{in, local.Name})
	}
	if !docker.DaemonRunning(ctx) {
		return out, nil
	}
	dinfos, err := docker.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing Docker clusters: %w", err)
	}
	for _, d := range dinfos {
		out = append(out, listInfo{local.Info{
			Name: d.Name, State: d.State, Created: d.Created, Nodes: d.Nodes, NodesUp: d.NodesUp,
			Kafka: d.Kafka, OwnerPID: d.OwnerPID, OwnerAlive: d.OwnerAlive, Kept: d.Kept, Remove: d.Remove,
		}, docker.Name})
	}
	return out, nil
}
