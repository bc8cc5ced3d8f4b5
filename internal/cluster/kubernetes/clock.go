package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	corev1 "k8s.io/api/core/v1"
)

// A cluster started with cluster.Config.Clock gives its kafka containers
// KAFKABOOK_FAKETIME, cluster.FaketimeEnv as words, which the supervisor
// (kubernetes.yaml) exports to the broker alone: libfaketime from
// kafkabook's image, reading the node's offset from clockFile on the
// node's volume, so that the offset outlives a new pod as the node's data
// does. A node whose broker is down gets an offset too, and starts on it.

// envFaketime names the kafka container's variable.
const envFaketime = "KAFKABOOK_FAKETIME"

// clockFile is where a node's broker reads its offset; none is no offset.
const clockFile = "/var/lib/kafka/kafkabook.clock"

var _ cluster.Clocks = (*Backend)(nil)

// applyClock gives the kafka container KAFKABOOK_FAKETIME, once the
// template's supervisor is known to export it.
func (m *manifest) applyClock() error {
	if !strings.Contains(m.ConfigMap.Data["supervise"], envFaketime) {
		return fmt.Errorf("kubernetes.yaml: its supervisor does not export %s to the broker, which clock steps need (kafkabook's own kubernetes.yaml does)", envFaketime)
	}
	c := kafkaContainer(&m.StatefulSet.Spec.Template.Spec)
	c.Env = append(c.Env, corev1.EnvVar{Name: envFaketime, Value: strings.Join(cluster.FaketimeEnv(cluster.ImageFaketimeLib, clockFile), " ")})
	return nil
}

// hasClock says whether node n's broker runs under libfaketime.
func hasClock(n node) bool {
	c := kafkaContainer(&n.Pod.Spec)
	return c != nil && slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == envFaketime })
}

// Clock moves the named nodes' wall clocks by jump, or puts them right.
func (b *Backend) Clock(ctx context.Context, names []string, jump time.Duration, reset bool) ([]cluster.ClockState, error) {
	a, all, err := b.clusterNodes(ctx)
	if err != nil {
		return nil, err
	}
	ns, err := b.byName(all, names)
	if err != nil {
		return nil, err
	}
	var out []cluster.ClockState
	for _, n := range ns {
		if !hasClock(n) {
			return out, cluster.NoClock(b.name)
		}
		was, err := readClock(ctx, a, n)
		if err != nil {
			return out, err
		}
		off, err := cluster.NextOffset(n.Name, was, jump, reset)
		if err != nil {
			return out, err
		}
		// A rename: the broker may read the file at any moment.
		script := `printf '%s' "$1" >"$2.tmp" && mv -f "$2.tmp" "$2"`
		if _, err := a.run(ctx, n.Pod.Name, containerKafka, "/bin/sh", "-c", script, "sh", cluster.ClockText(off), clockFile); err != nil {
			return out, fmt.Errorf("clock %s: %w", n.Name, err)
		}
		out = append(out, cluster.ClockState{Node: n.Name, Offset: off})
	}
	return out, nil
}

// ClockStates is every node's offset; none for a cluster without Clock.
func (b *Backend) ClockStates(ctx context.Context) ([]cluster.ClockState, error) {
	a, all, err := b.clusterNodes(ctx)
	if err != nil {
		return nil, err
	}
	var out []cluster.ClockState
	for _, n := range all {
		if !hasClock(n) {
			continue
		}
		off, err := readClock(ctx, a, n)
		if err != nil {
			return nil, err
		}
		out = append(out, cluster.ClockState{Node: n.Name, Offset: off})
	}
	return out, nil
}

// readClock reads node n's offset from its volume.
func readClock(ctx context.Context, a *api, n node) (time.Duration, error) {
	out, err := a.run(ctx, n.Pod.Name, containerKafka, "/bin/sh", "-c", `cat "$1" 2>/dev/null || true`, "sh", clockFile)
	if err != nil {
		return 0, fmt.Errorf("%s: reading its clock: %w", n.Name, err)
	}
	off, err := cluster.ParseClock(out)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", n.Name, err)
	}
	return off, nil
}
