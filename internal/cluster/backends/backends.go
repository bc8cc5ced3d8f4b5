// Package backends is the one list of the cluster backends kafkabook runs
// on and how one is chosen: which options each takes, which is the
// default, which holds a cluster of a given name, and a backend's name
// for provenance; and the cluster a run uses (ForRun). The mains parse
// flags into Options and call here; each backend's package knows nothing of
// the others. Errors that are the user's to fix are UsageErrors.
package backends

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/docker"
	"github.com/kafkabook/kafkabook/internal/cluster/external"
	"github.com/kafkabook/kafkabook/internal/cluster/kubernetes"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/runbook"
)

// Options are the backend-specific settings the command line gives.
type Options struct {
	Image, Compose        string // docker (and Image for kubernetes)
	Kubeconfig, Namespace string // kubernetes
	ClusterFile           string // external
}

// A Kind is one backend: its name, how a handle on a cluster of it is
// made, and how to tell its handles.
type Kind struct {
	Name string
	Open func(name string, o Options) (cluster.Backend, error)
	Owns func(cluster.Backend) bool
	// Type is a value of the backend's type, for what it implements
	// beyond cluster.Backend (Lacks), before any handle is opened.
	Type cluster.Backend
}

// Kinds are the backends, the default first.
var Kinds = []Kind{
	{local.Name, func(name string, _ Options) (cluster.Backend, error) { return local.New(name) },
		func(b cluster.Backend) bool { _, ok := b.(*local.Backend); return ok }, (*local.Backend)(nil)},
	{docker.Name, func(name string, o Options) (cluster.Backend, error) {
		return docker.New(name, docker.Options{Image: o.Image, ComposeFile: o.Compose})
	}, func(b cluster.Backend) bool { _, ok := b.(*docker.Backend); return ok }, (*docker.Backend)(nil)},
	{kubernetes.Name, func(name string, o Options) (cluster.Backend, error) {
		return kubernetes.New(name, kubernetes.Options{Kubeconfig: o.Kubeconfig, Namespace: o.Namespace, Image: o.Image})
	}, func(b cluster.Backend) bool {
		switch b.(type) {
		case *kubernetes.Backend, *kubernetes.Attached:
			return true
		}
		return false
	}, (*kubernetes.Backend)(nil)},
	{external.Name, func(_ string, o Options) (cluster.Backend, error) { return external.New(o.ClusterFile) },
		func(b cluster.Backend) bool { _, ok := b.(*external.Backend); return ok }, (*external.Backend)(nil)},
}

// Lacks says why a cluster of backend kind cannot do what a step needs
// (a fault the fault table refuses it, runbook.Cannot; what else it
// lacks, cluster.Lacks), "" when it can or kind is "" (chosen when the
// run starts). TestFaultTable holds the table to the backends' types.
func Lacks(kind, need string) string {
	if msg := runbook.Cannot(kind, need); msg != "" {
		return msg
	}
	for _, k := range Kinds {
		if k.Name == kind {
			return cluster.Lacks(k.Type, need)
		}
	}
	return ""
}

// Names lists the backends' names: local, docker, kubernetes, external.
func Names() []string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = k.Name
	}
	return names
}

// Open returns backend kind's handle on cluster name. Its errors are
// UsageErrors: a handle is made from the user's flags (a backend's name, a
// cluster file, a kubeconfig) before anything runs.
func Open(kind, name string, o Options) (cluster.Backend, error) {
	for _, k := range Kinds {
		if k.Name == kind {
			b, err := k.Open(name, o)
			return b, usage(err)
		}
	}
	return nil, usagef("backend %q: use %s", kind, strings.Join(Names(), ", "))
}

// NameOf is a backend's name for provenance and messages.
func NameOf(b cluster.Backend) string {
	for _, k := range Kinds {
		if k.Owns(b) {
			return k.Name
		}
	}
	return local.Name
}

// Choose checks that the options fit the backend named (kind, "" for
// automatic) and returns the backend they name: external with a cluster
// file, kubernetes with a kubeconfig or namespace, docker with an image
// or compose file; "" when nothing names one. Its errors are UsageErrors.
func Choose(kind string, o Options) (string, error) {
	kind, err := choose(kind, o)
	return kind, usage(err)
}

func choose(kind string, o Options) (string, error) {
	if kind != "" && !slices.Contains(Names(), kind) {
		names := Names()
		return "", fmt.Errorf("--backend %q: use %s or %s", kind, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
	if o.ClusterFile != "" && kind == "" {
		kind = external.Name
	}
	switch {
	case kind == external.Name && o.ClusterFile == "":
		return "", errors.New("the external backend needs --cluster-file FILE: the cluster's addresses, security and fault commands (see `kafkabook help cluster`)")
	case kind != external.Name && o.ClusterFile != "":
		return "", errors.New("--cluster-file is for --backend external")
	case kind == external.Name && (o.Image != "" || o.Compose != "" || o.Kubeconfig != "" || o.Namespace != ""):
		return "", errors.New("--image, --compose, --kubeconfig and --namespace are not for --backend external")
	case kind == external.Name:
		return external.Name, nil
	}
	kube := o.Kubeconfig != "" || o.Namespace != ""
	switch {
	case (o.Image != "" || o.Compose != "") && kind == local.Name:
		return "", errors.New("--image and --compose are for --backend docker (and --image for kubernetes)")
	case o.Compose != "" && (kube || kind == kubernetes.Name):
		return "", errors.New("--compose is for --backend docker")
	case kube && kind != "" && kind != kubernetes.Name:
		return "", errors.New("--kubeconfig and --namespace are for --backend kubernetes")
	case kube || kind == kubernetes.Name:
		return kubernetes.Name, nil
	case o.Image != "" || o.Compose != "":
		return docker.Name, nil
	}
	return kind, nil
}

// ForNew is the backend that starts a new cluster when none is named:
// local where it can run, else docker, with why when it is not local.
func ForNew() (kind, why string) {
	if os.Geteuid() != 0 {
		return docker.Name, "the local backend needs root (network namespaces)"
	}
	return local.Name, ""
}

// OpenNew returns the handle that starts a new cluster called name: on the
// backend kind names (Choose), else local where it can run, else docker.
// progress hears which it chose when the user did not, and why.
func OpenNew(kind, name string, o Options, progress cluster.Progress) (cluster.Backend, error) {
	kind, err := Choose(kind, o)
	if err != nil {
		return nil, err
	}
	return openNew(kind, name, o, progress)
}

// openNew is OpenNew for a kind Choose returned.
func openNew(kind, name string, o Options, progress cluster.Progress) (cluster.Backend, error) {
	if kind == "" {
		var why string
		if kind, why = ForNew(); why != "" {
			progress("backend: %s (%s; choose with --backend)", kind, why)
		} else {
			progress("backend: %s (choose with --backend)", kind)
		}
	}
	return Open(kind, name, o)
}

// OpenExisting returns the handle on an existing cluster called name: on
// the backend kind names (Choose), else the one that has a cluster of that
// name (Find).
func OpenExisting(ctx context.Context, kind, name string, o Options) (cluster.Backend, error) {
	kind, err := Choose(kind, o)
	if err != nil {
		return nil, err
	}
	return openExisting(ctx, kind, name, o)
}

// openExisting is OpenExisting for a kind Choose returned.
func openExisting(ctx context.Context, kind, name string, o Options) (cluster.Backend, error) {
	if kind != "" {
		return Open(kind, name, o)
	}
	return Find(ctx, name, o)
}

// Find returns the backend that has a cluster called name (local first,
// then docker when a daemon answers), else the local one.
func Find(ctx context.Context, name string, o Options) (cluster.Backend, error) {
	lb, err := Open(local.Name, name, o)
	if err != nil {
		return nil, err
	}
	if _, err := lb.Status(ctx); !errors.Is(err, cluster.ErrNotFound) {
		return lb, nil
	}
	if docker.DaemonRunning(ctx) {
		db, err := Open(docker.Name, name, o)
		if err != nil {
			return nil, err
		}
		if _, err := db.Status(ctx); err == nil {
			return db, nil
		}
	}
	return lb, nil
}

// Info is a cluster in `cluster list`: local's fields plus the backend.
type Info struct {
	local.Info
	Backend string `json:"backend"`
}

// List lists the clusters of the backends that keep them on this machine:
// local's, and docker's when a daemon answers.
func List(ctx context.Context) ([]Info, error) {
	infos, err := local.List()
	if err != nil {
		return nil, err
	}
	out := []Info{}
	for _, in := range infos {
		out = append(out, Info{in, local.Name})
	}
	if !docker.DaemonRunning(ctx) {
		return out, nil
	}
	dinfos, err := docker.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing Docker clusters: %w", err)
	}
	for _, d := range dinfos {
		out = append(out, Info{local.Info{
			Name: d.Name, State: d.State, Created: d.Created, Nodes: d.Nodes, NodesUp: d.NodesUp,
			Kafka: d.Kafka, OwnerPID: d.OwnerPID, OwnerAlive: d.OwnerAlive, Kept: d.Kept, Remove: d.Remove,
		}, docker.Name})
	}
	return out, nil
}
