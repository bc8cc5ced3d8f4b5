package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// quorumTool is the main class of kafka-metadata-quorum.sh, which adds
// and removes a dynamic quorum's voters (KIP-853).
const quorumTool = "org.apache.kafka.tools.MetadataQuorumCommand"

// voterTimeout bounds each wait of a voter step: for a new node to catch
// up, for the quorum to list (or drop) a voter and have a leader.
const voterTimeout = 2 * time.Minute

// controllers is the backend's way of changing the quorum, or why it has
// none.
func (n *nemesis) controllers(need string) (cluster.Controllers, cluster.Tools, error) {
	c, ok := n.opts.Backend.(cluster.Controllers)
	t, tools := n.opts.Backend.(cluster.Tools)
	if !ok || !tools {
		return nil, nil, fmt.Errorf("%s", cluster.Lacks(n.opts.Backend, need))
	}
	return c, t, nil
}

var _ = handles(voterAdd, runbook.OpVoterAdd)

// voterAdd: voter add kN [--kafka VERSION] — a new node started as a
// broker and controller that follows the quorum, or a node that was a
// voter, made a voter by Kafka's own tool run on it; then waited for until
// the quorum lists it.
func voterAdd(ctx context.Context, n *nemesis, s runbook.Step, a runbook.VoterAdd, log *stepLog) error {
	ctl, tools, err := n.controllers(cluster.NeedVoterAdd)
	if err != nil {
		return err
	}
	at := time.Now().UTC()
	node, exists := n.status.Node(a.Node)
	version := ""
	if !exists {
		if node, version, _, err = n.joinNode(ctx, "voter add", a.Node, a.Kafka, ctl.AddController, log); err != nil {
			return err
		}
		log.line("%s registered as broker %d on Kafka %s; it follows the quorum as an observer", node.Name, node.ID, version)
	}
	id := int32(node.ID)
	if q, err := n.admin.DescribeQuorum(ctx); err == nil {
		if _, ok := q.Voter(id); ok {
			return fmt.Errorf("voter add %s: it is a voter already (voters %s)", node.Name, voterNames(q))
		}
	}
	// The leader takes a voter only once it has caught up with the log:
	// until then the tool is refused, and asked again.
	start := time.Now()
	var out string
	err = poll.Until(ctx, time.Second, voterTimeout, log.progress, func(ctx context.Context) (bool, string, error) {
		var terr error
		out, terr = tools.Tool(ctx, node.Name, quorumTool, []string{"--bootstrap-server", cluster.ToolBootstrap, "--command-config", cluster.ToolConfig, "add-controller"})
		if terr != nil {
			return false, fmt.Sprintf("kafka-metadata-quorum.sh add-controller on %s: %s", node.Name, lastLine(out)), nil
		}
		return true, "", nil
	})
	printTool(log, node.Name, out)
	if err != nil {
		return fmt.Errorf("voter add %s: %w", node.Name, err)
	}
	n.record(results.Fault{At: at, Op: "voter add", Nodes: []string{node.Name}, Pos: s.Pos.String(), Kafka: version})
	q, err := n.waitQuorum(ctx, log, func(q kafka.Quorum) bool {
		_, ok := q.Voter(id)
		return ok
	}, fmt.Sprintf("waiting for the quorum to list %s among its voters", node.Name))
	if err != nil {
		return fmt.Errorf("voter add %s: %w", node.Name, err)
	}
	log.line("%s is a voter after %.1fs: %s", node.Name, time.Since(start).Seconds(), quorumLine(q))
	return nil
}

var _ = handles(voterRemove, runbook.OpVoterRemove)

// voterRemove: voter remove NODE — the node taken out of the quorum's
// voters by Kafka's own tool run on another running node, with the
// voter's directory id as DescribeQuorum gives it; then waited for until
// the quorum no longer lists it and has a leader.
func voterRemove(ctx context.Context, n *nemesis, s runbook.Step, r runbook.VoterRemove, log *stepLog) error {
	_, tools, err := n.controllers(cluster.NeedVoterRemove)
	if err != nil {
		return err
	}
	names, err := n.nodes(ctx, r.Node)
	if err != nil {
		return err
	}
	name := names[0]
	node, ok := n.status.Node(name)
	if !ok {
		return fmt.Errorf("voter remove %s: no such node in the cluster now", name)
	}
	id := int32(node.ID)
	q, err := n.admin.DescribeQuorum(ctx)
	if err != nil {
		return err
	}
	v, ok := q.Voter(id)
	switch {
	case !ok:
		return fmt.Errorf("voter remove %s: it is not a voter (voters %s)", name, voterNames(q))
	case v.DirectoryID == "":
		return fmt.Errorf("voter remove %s: the quorum gives no directory id for it: a static quorum (controller.quorum.voters) cannot change", name)
	case len(q.Voters) == 1:
		return fmt.Errorf("voter remove %s: it is the quorum's only voter", name)
	}
	runOn := ""
	for _, nd := range n.status.Nodes {
		if nd.Name != name && nd.State == cluster.Running {
			runOn = nd.Name
			break
		}
	}
	if runOn == "" {
		return fmt.Errorf("voter remove %s: no other node is running to run kafka-metadata-quorum.sh on", name)
	}
	was := q.Leader
	at := time.Now().UTC()
	start := time.Now()
	out, err := tools.Tool(ctx, runOn, quorumTool, []string{"--bootstrap-server", cluster.ToolBootstrap,
		"remove-controller", "--controller-id", fmt.Sprint(id), "--controller-directory-id", v.DirectoryID})
	printTool(log, runOn, out)
	if err != nil {
		return fmt.Errorf("voter remove %s: %w", name, err)
	}
	n.record(results.Fault{At: at, Op: "voter remove", Nodes: []string{name}, Pos: s.Pos.String()})
	q, err = n.waitQuorum(ctx, log, func(q kafka.Quorum) bool {
		_, still := q.Voter(id)
		return !still && q.Leader >= 0 && q.Leader != id
	}, fmt.Sprintf("waiting for the quorum to drop %s and have a leader", name))
	if err != nil {
		return fmt.Errorf("voter remove %s: %w", name, err)
	}
	resigned := ""
	if was == id {
		resigned = fmt.Sprintf("; it was the active controller, and k%d leads now", q.Leader)
	}
	log.line("%s is no longer a voter after %.1fs%s: %s", name, time.Since(start).Seconds(), resigned, quorumLine(q))
	return nil
}

// waitQuorum polls DescribeQuorum until done holds, and returns the
// quorum it saw then.
func (n *nemesis) waitQuorum(ctx context.Context, log *stepLog, done func(kafka.Quorum) bool, waiting string) (kafka.Quorum, error) {
	var q kafka.Quorum
	err := poll.Until(ctx, 200*time.Millisecond, voterTimeout, log.progress, func(ctx context.Context) (bool, string, error) {
		var err error
		if q, err = n.admin.DescribeQuorum(ctx); err != nil {
			return false, waiting + ": " + err.Error(), nil
		}
		return done(q), waiting, nil
	})
	return q, err
}

// voterNames are the quorum's voters as node names: "k1,k2,k3".
func voterNames(q kafka.Quorum) string {
	var out []string
	for _, id := range q.VoterIDs() {
		out = append(out, runbook.NodeName(id))
	}
	return strings.Join(out, ",")
}

// quorumLine says the quorum in one line: its voters and its leader.
func quorumLine(q kafka.Quorum) string {
	return fmt.Sprintf("voters %s, leader k%d (epoch %d)", voterNames(q), q.Leader, q.Epoch)
}

// printTool prints what one of Kafka's tools said, without the logging
// library's noise.
func printTool(log *stepLog, node, out string) {
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "SLF4J") {
			log.line("%s: %s", node, l)
		}
	}
}

// lastLine is the last line of a tool's output that says something.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "SLF4J") && !strings.HasPrefix(l, "at ") {
			return l
		}
	}
	return "no output"
}
