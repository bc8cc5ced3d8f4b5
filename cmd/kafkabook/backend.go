package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/docker"
	"github.com/kafkabook/kafkabook/internal/cluster/external"
	"github.com/kafkabook/kafkabook/internal/cluster/kubernetes"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/spf13/pflag"
)

// backendFlags choose a cluster backend: --backend
// local|docker|kubernetes|external, for docker and kubernetes --image, for
// docker --compose, for kubernetes --kubeconfig and --namespace, for
// external --cluster-file.
type backendFlags struct {
	backend, image, compose string
	kubeconfig, namespace   string
	clusterFile             string
}

func (f *backendFlags) register(fs *pflag.FlagSet, starts bool) {
	fs.StringVar(&f.backend, "backend", "", "local (JVMs in network namespaces; needs root), docker (containers from compose.yaml), kubernetes (pods from kubernetes.yaml) or external (a cluster kafkabook did not start: --cluster-file); default: local where it can run, else docker, or the backend of the named cluster")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubernetes: the kubeconfig `FILE` (default $KUBECONFIG, else ~/.kube/config, else the one scripts/kubernetes-up.sh writes)")
	fs.StringVar(&f.namespace, "namespace", "", "kubernetes: the `NAMESPACE` the cluster lives in (default the kubeconfig's)")
	f.registerExternal(fs)
	if starts {
		f.registerDocker(fs)
	}
}

// registerDocker registers --image and --compose. A backticked word in a
// usage is the flag's value name to pflag (--image IMAGE), so commands are
// quoted with ' there.
func (f *backendFlags) registerDocker(fs *pflag.FlagSet) {
	fs.StringVar(&f.image, "image", "", "docker, kubernetes: the `IMAGE` to run (docker: default apache/kafka:VERSION, else kafkabook/kafka:VERSION from 'kafkabook image build'; kubernetes: default kafkabook/kafka:VERSION, imported into the node, never pulled)")
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
	case "", local.Name, docker.Name, kubernetes.Name, external.Name:
	default:
		return "", usageErr("--backend %q: use local, docker, kubernetes or external", f.backend)
	}
	if f.clusterFile != "" && f.backend == "" {
		f.backend = external.Name
	}
	switch {
	case f.backend == external.Name && f.clusterFile == "":
		return "", usageErr("the external backend needs --cluster-file FILE: the cluster's addresses, security and fault commands (see `kafkabook help cluster`)")
	case f.backend != external.Name && f.clusterFile != "":
		return "", usageErr("--cluster-file is for --backend external")
	case f.backend == external.Name && (f.image != "" || f.compose != "" || f.kubeconfig != "" || f.namespace != ""):
		return "", usageErr("--image, --compose, --kubeconfig and --namespace are not for --backend external")
	case f.backend == external.Name:
		return external.Name, nil
	}
	kube := f.kubeconfig != "" || f.namespace != ""
	switch {
	case (f.image != "" || f.compose != "") && f.backend == local.Name:
		return "", usageErr("--image and --compose are for --backend docker (and --image for kubernetes)")
	case f.compose != "" && (kube || f.backend == kubernetes.Name):
		return "", usageErr("--compose is for --backend docker")
	case kube && f.backend != "" && f.backend != kubernetes.Name:
		return "", usageErr("--kubeconfig and --namespace are for --backend kubernetes")
	case kube || f.backend == kubernetes.Name:
		return kubernetes.Name, nil
	case f.image != "" || f.compose != "":
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
	if kind == kubernetes.Name {
		b, err := kubernetes.New(name, kubernetes.Options{Kubeconfig: f.kubeconfig, Namespace: f.namespace, Image: f.image})
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
	case *kubernetes.Backend, *kubernetes.Attached:
		return kubernetes.Name
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
