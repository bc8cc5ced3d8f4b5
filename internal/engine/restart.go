package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/runbook"
)

var _ = handles(restart, runbook.OpRestart, runbook.OpRoll)

// restart: restart NODE... and roll [NODE...] — each node in turn is put
// on its new release (--to, resolved before it goes down) and given its
// new settings (--set), shut down
// cleanly or killed, and started on its data; a roll then waits, as an
// operator does, before the next node (and after the last, so that the
// step ends with the cluster back). Each stop and start is recorded as it
// lands, the start with the release it ran.
func restart(ctx context.Context, n *nemesis, s runbook.Step, r runbook.Restart, log *stepLog) error {
	var nodes []string
	if r.Targets == nil {
		for _, node := range n.status.Nodes {
			nodes = append(nodes, node.Name)
		}
	} else {
		var err error
		if nodes, err = n.targets(ctx, r.Targets); err != nil {
			return err
		}
	}
	var rel cluster.Releaser
	if r.To != "" {
		var ok bool
		if rel, ok = n.opts.Backend.(cluster.Releaser); !ok {
			return fmt.Errorf("%s", cluster.Lacks(n.opts.Backend, s.Name+" --to"))
		}
	}
	var conf cluster.Configurer
	if len(r.Set) > 0 {
		var ok bool
		if conf, ok = n.opts.Backend.(cluster.Configurer); !ok {
			return fmt.Errorf("%s", cluster.Lacks(n.opts.Backend, s.Name+" --set"))
		}
	}
	down := cluster.Stop
	if !r.Clean {
		down = cluster.Kill
	}
	for i, node := range nodes {
		if rel != nil {
			if err := rel.Release(ctx, node, r.To, log.progress); err != nil {
				return fmt.Errorf("%s: %w", node, err)
			}
		}
		if conf != nil {
			if err := conf.Configure(ctx, node, r.Set); err != nil {
				return fmt.Errorf("%s: %w", node, err)
			}
		}
		begin := time.Now()
		if err := cluster.Apply(ctx, n.opts.Backend, down, []string{node}, log.progress, n.landed(ctx, s, r.To, log)); err != nil {
			return err
		}
		stopped := time.Since(begin)
		if err := cluster.Apply(ctx, n.opts.Backend, cluster.Start, []string{node}, log.progress, n.landed(ctx, s, r.To, log)); err != nil {
			return err
		}
		line := fmt.Sprintf("%s %s in %.1fs, started", node, map[cluster.Op]string{cluster.Stop: "stopped", cluster.Kill: "killed"}[down], stopped.Seconds())
		if r.To != "" {
			line += " on " + r.To
		}
		if len(r.Set) > 0 {
			var kv []string
			for _, k := range slices.Sorted(maps.Keys(r.Set)) {
				kv = append(kv, k+"="+r.Set[k])
			}
			line += " with " + strings.Join(kv, " ")
		}
		waited, err := n.between(ctx, r, log.progress)
		if err != nil {
			return fmt.Errorf("%s, then %w", line, err)
		}
		log.line("%s%s", line, waited)
		if r.Pause > 0 && i < len(nodes)-1 {
			select {
			case <-time.After(r.Pause):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

// between waits as the roll asks before its next node, and says for how
// long.
func (n *nemesis) between(ctx context.Context, r runbook.Restart, progress poll.Progress) (string, error) {
	start := time.Now()
	switch r.Wait {
	case runbook.RollISR:
		// Every node must be running before an ISR counts as full: the
		// metadata may still list a node that has just stopped.
		err := poll.Until(ctx, 100*time.Millisecond, r.Timeout, progress, func(ctx context.Context) (bool, string, error) {
			_, ids := n.running(ctx)
			if len(ids) < len(n.status.Nodes) {
				return false, n.notRunning(ids), nil
			}
			return n.fullISR(ctx)
		})
		if err != nil {
			return "", fmt.Errorf("waiting for every ISR to be full: %w", err)
		}
		return fmt.Sprintf(", every ISR full after %.1fs", time.Since(start).Seconds()), nil
	case runbook.RollHealthy:
		if err := n.waitHealthy(ctx, r.Timeout, progress); err != nil {
			return "", fmt.Errorf("waiting for a healthy cluster: %w", err)
		}
		return fmt.Sprintf(", healthy after %.1fs", time.Since(start).Seconds()), nil
	}
	return "", nil
}

// featureTool is Kafka's kafka-features.sh.
const featureTool = "org.apache.kafka.tools.FeatureCommand"

var _ = handles(featuresUpgrade, runbook.OpFeaturesUpgrade)

// featuresUpgrade: features upgrade --metadata VERSION | --release
// VERSION | --feature NAME=LEVEL... — Kafka's own tool, run on the first running node with
// that node's release, then the levels finalized afterwards.
func featuresUpgrade(ctx context.Context, n *nemesis, s runbook.Step, u runbook.FeaturesUpgrade, log *stepLog) error {
	tools, ok := n.opts.Backend.(cluster.Tools)
	if !ok {
		return fmt.Errorf("%s", cluster.Lacks(n.opts.Backend, cluster.NeedFeaturesUpgrade))
	}
	st, err := n.opts.Backend.Status(ctx)
	if err != nil {
		return err
	}
	node := ""
	for _, nd := range st.Nodes {
		if nd.State == cluster.Running {
			node = nd.Name
			break
		}
	}
	if node == "" {
		return fmt.Errorf("no node is running to run kafka-features.sh on")
	}
	args := []string{"--bootstrap-server", cluster.ToolBootstrap, "upgrade"}
	// --metadata raises metadata.version alone; --release-version raises
	// every feature to the release's levels (KIP-1022), kraft.version
	// too. Kafka marks the first deprecated, and prints so.
	if u.Metadata != "" {
		args = append(args, "--metadata", u.Metadata)
	}
	if u.Release != "" {
		args = append(args, "--release-version", u.Release)
	}
	for _, k := range slices.Sorted(maps.Keys(u.Features)) {
		args = append(args, "--feature", k+"="+u.Features[k])
	}
	out, err := tools.Tool(ctx, node, featureTool, args)
	printTool(log, node, out)
	if err != nil {
		return err
	}
	fs, err := n.admin.FinalizedFeatures(ctx)
	if err != nil {
		return err
	}
	log.line("%s", featuresLine(fs))
	return nil
}
