package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/kubernetes"
	"github.com/kafkabook/kafkabook/runbook"
	"github.com/spf13/pflag"
)

// attachFlags make run use a Kafka cluster in Kubernetes that kafkabook
// did not start: --attach NAME (a Strimzi Kafka's name, found by its
// pods' labels) and --allow-faults NAME, without which its faults are
// refused.
type attachFlags struct {
	name, allowFaults string
}

func (a *attachFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&a.name, "attach", "", "kubernetes: run against the existing Kafka cluster `NAME` (a Strimzi Kafka: pods labelled strimzi.io/cluster=NAME) instead of starting one; kafkabook adds only its client pod, which it removes afterwards")
	fs.StringVar(&a.allowFaults, "allow-faults", "", "with --attach: let the runbook's faults hurt the attached cluster `NAME` (must name it again)")
}

// cluster is the attached cluster for a run, and the teardown that removes
// kafkabook's client pod next to it; nil without --attach.
func (a *attachFlags) cluster(ctx context.Context, bf *backendFlags, doc *runbook.Doc, keep bool, progress cluster.Progress) (cluster.Backend, func(), error) {
	if a.name == "" {
		if a.allowFaults != "" {
			return nil, nil, usageErr("--allow-faults is for --attach")
		}
		return nil, nil, nil
	}
	switch {
	case bf.backend != "" && bf.backend != kubernetes.Name:
		return nil, nil, usageErr("--attach is for --backend kubernetes")
	case keep:
		return nil, nil, usageErr("--keep-cluster and --attach: an attached cluster is not kafkabook's to keep or remove")
	case a.allowFaults != "" && a.allowFaults != a.name:
		return nil, nil, usageErr("--allow-faults %s does not name the attached cluster %s", a.allowFaults, a.name)
	}
	if a.allowFaults == "" {
		for _, d := range runbook.Directives {
			if d.Hurts && doc.Uses(d.Op) {
				return nil, nil, usageErr("%s hurts its cluster (%s) and --attach %s names a cluster kafkabook did not start: add --allow-faults %s to let it", doc.Path, d.Name, a.name, a.name)
			}
		}
	}
	b, err := kubernetes.Attach(a.name, kubernetes.AttachOptions{Kubeconfig: bf.kubeconfig, Namespace: bf.namespace, AllowFaults: a.allowFaults, Image: bf.image})
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	st, err := b.Status(ctx)
	if err != nil {
		return nil, nil, &exitError{exitRun, err}
	}
	if len(st.Nodes) < doc.Meta.Nodes {
		return nil, nil, &exitError{exitUsage, fmt.Errorf("%s needs %d nodes and the attached cluster %s has %d brokers", doc.Path, doc.Meta.Nodes, a.name, len(st.Nodes))}
	}
	progress("attached to cluster %s (%d brokers, Kafka %s); it stays up", a.name, len(st.Nodes), st.Kafka)
	var once sync.Once
	return b, func() {
		once.Do(func() {
			if err := b.Down(context.WithoutCancel(ctx), progress); err != nil {
				progress("removing kafkabook's client pod: %v", err)
			}
		})
	}, nil
}
