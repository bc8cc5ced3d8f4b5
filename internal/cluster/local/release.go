package local

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/kafkabook/kafkabook/internal/nsexec"
)

// Release makes node run Kafka version from its next start: the release is
// resolved into the cache first (a download, the first time), so that the
// node is down no longer than a restart takes. The node's data and
// configuration stay; its release is recorded in the state, and Status
// reports it.
func (b *Backend) Release(ctx context.Context, node, version string, progress cluster.Progress) error {
	if err := needRoot("restart --to"); err != nil {
		return err
	}
	dist, err := kafkadist.Install(ctx, version, progress)
	if err != nil {
		return err
	}
	return b.changing("restart --to", []string{node}, func(st *state, idx []int) error {
		n := &st.Nodes[idx[0]]
		n.Kafka, n.Libs = dist.Version, dist.Libs
		if dist.Version == st.Kafka {
			n.Kafka, n.Libs = "", "" // back on the cluster's own release
		}
		return nil
	})
}

// Configure sets node's own broker settings from its next start: its
// server.properties is written again with them on top of the cluster's.
func (b *Backend) Configure(ctx context.Context, node string, set map[string]string) error {
	return b.changing("restart --set", []string{node}, func(st *state, idx []int) error {
		n := &st.Nodes[idx[0]]
		if n.Broker == nil {
			n.Broker = map[string]string{}
		}
		maps.Copy(n.Broker, set)
		return os.WriteFile(filepath.Join(n.Dir, "server.properties"), []byte(st.properties(*n)), 0o644)
	})
}

// Tool runs one of Kafka's command-line tools (its main class) in node's
// network namespace, on the node's release, as kafka-features.sh run on
// the broker's host does; ToolBootstrap in args is the node's broker
// listener, ToolConfig its server.properties. The tool logs to its own
// output, never to the broker's log.
func (b *Backend) Tool(ctx context.Context, node, class string, args []string) (string, error) {
	if err := needRoot("a Kafka tool on a node"); err != nil {
		return "", err
	}
	st, ok, err := b.load()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("no cluster %q is up", b.name)
	}
	idx, err := st.indexes([]string{node})
	if err != nil {
		return "", err
	}
	n := st.Nodes[idx[0]]
	bootstrap := fmt.Sprintf("%s:%d", st.Network.nodeIP(n.ID), brokerPort)
	if st.secure() {
		return "", fmt.Errorf("a Kafka tool on a node of a %s cluster needs its client settings: not done yet", st.Security)
	}
	full := append(slices.Clone(jvmFlags), "-cp", filepath.Join(st.libs(n), "*"), class)
	for _, a := range args {
		a = strings.ReplaceAll(a, cluster.ToolBootstrap, bootstrap)
		full = append(full, strings.ReplaceAll(a, cluster.ToolConfig, filepath.Join(n.Dir, "server.properties")))
	}
	ctx, cancel := context.WithTimeout(ctx, cluster.ToolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "java", full...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := nsexec.Start(n.NS, cmd, true); err != nil {
		return "", fmt.Errorf("%s: start %s: %w", node, class, err)
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return out.String(), fmt.Errorf("%s on %s: %w", class, node, ctx.Err())
		}
		return out.String(), fmt.Errorf("%s on %s: %v\n%s", class, node, err, cluster.TailLines(out.String(), 20))
	}
	return out.String(), nil
}

// Reset makes the cluster new again on its own release, on the same
// network: every node is killed, its data removed and its storage
// formatted afresh under a new cluster id, and started. A run that moved
// nodes to another release (and perhaps finalized its features, which
// cannot be undone) leaves a cluster the next run cannot start from; the
// engine resets it between runs. The broker logs stay: their lines are
// read by time. The caller waits for the cluster to be healthy.
func (b *Backend) Reset(ctx context.Context, progress cluster.Progress) error {
	return b.changing("a cluster reset", nil, func(st *state, _ []int) error { return b.reset(ctx, st, progress) })
}

// reset is Reset under the cluster's lock.
func (b *Backend) reset(ctx context.Context, st *state, progress cluster.Progress) error {
	var scram []string
	if st.secure() {
		var err error
		if scram, err = b.scramArgs(*st); err != nil {
			return err
		}
	}
	progress("making cluster %q new on Kafka %s: killing its nodes, removing their data", b.name, st.Kafka)
	// Brokers added by the last run go, namespace and all: the cluster
	// is made new with the nodes it was made with.
	var kept []nodeState
	for _, n := range st.Nodes {
		if !n.Added {
			kept = append(kept, n)
			continue
		}
		if _, err := b.apply(ctx, st, cluster.Kill, n, progress); err != nil {
			return fmt.Errorf("%s: %w", n.Name, err)
		}
		for _, link := range []string{st.Network.hostVeth(n.ID), st.Network.peerVeth(n.ID)} {
			if err := deleteLink(link); err != nil {
				return fmt.Errorf("%s: %w", n.Name, err)
			}
		}
		if err := deleteNS(n.NS); err != nil {
			return fmt.Errorf("%s: %w", n.Name, err)
		}
		if err := os.RemoveAll(n.Dir); err != nil {
			return err
		}
	}
	st.Nodes = kept
	for i, n := range st.Nodes {
		n, err := b.apply(ctx, st, cluster.Kill, n, progress)
		if err != nil {
			return fmt.Errorf("%s: %w", n.Name, err)
		}
		n.Kafka, n.Libs, n.Broker, n.Removed = "", "", nil, false
		if st.PowerLoss {
			// The layer goes with what it held (and any disk fault); the
			// next launch mounts a fresh one over the new durable data.
			if err := n.stopLayer(ctx); err != nil {
				return err
			}
			n.Layer = nil
			if err := os.RemoveAll(n.durableDir()); err != nil {
				return err
			}
		}
		st.Nodes[i] = n
		if err := os.RemoveAll(filepath.Join(n.Dir, "data")); err != nil {
			return err
		}
	}
	st.ClusterID = cluster.RandomUUID()
	if err := b.save(*st); err != nil {
		return err
	}
	for _, n := range st.Nodes {
		if err := st.prepare(ctx, n, scram...); err != nil {
			return err
		}
	}
	for i, n := range st.Nodes {
		n, err := st.launch(n)
		st.Nodes[i] = n
		if saveErr := b.save(*st); saveErr != nil && err == nil {
			err = saveErr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
