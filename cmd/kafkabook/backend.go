package main

import (
	"context"
	"errors"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/backends"
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

// options are the flags as the backends read them.
func (f *backendFlags) options() backends.Options {
	return backends.Options{Image: f.image, Compose: f.compose, Kubeconfig: f.kubeconfig, Namespace: f.namespace, ClusterFile: f.clusterFile}
}

// check rejects flags that do not fit the backend (backends.Choose); it
// returns the backend named, "" for automatic.
func (f *backendFlags) check() (string, error) {
	kind, err := backends.Choose(f.backend, f.options())
	return kind, backendErr(err)
}

// newBackend returns backend kind's handle on cluster name.
func (f *backendFlags) newBackend(kind, name string) (cluster.Backend, error) {
	b, err := backends.Open(kind, name, f.options())
	return b, backendErr(err)
}

// forNew returns the backend that starts a new cluster: the one named, else
// local where it can run, else docker; it says which it chose.
func (f *backendFlags) forNew(name string, progress cluster.Progress) (cluster.Backend, error) {
	b, err := backends.OpenNew(f.backend, name, f.options(), progress)
	return b, backendErr(err)
}

// forExisting returns the backend of an existing cluster: the one named,
// else the one that has a cluster of that name (local first), else local.
func (f *backendFlags) forExisting(ctx context.Context, name string) (cluster.Backend, error) {
	b, err := backends.OpenExisting(ctx, f.backend, name, f.options())
	return b, backendErr(err)
}

// find returns the backend that has a cluster called name (local first),
// else the local one.
func (f *backendFlags) find(ctx context.Context, name string) (cluster.Backend, error) {
	b, err := backends.Find(ctx, name, f.options())
	return b, backendErr(err)
}

// backendErr gives the backends' errors their exit codes: the user's
// (backends.UsageError) mean nothing ran; the rest that the run could not
// complete.
func backendErr(err error) error {
	var ue *backends.UsageError
	if errors.As(err, &ue) {
		return &exitError{exitUsage, err}
	}
	return err
}
