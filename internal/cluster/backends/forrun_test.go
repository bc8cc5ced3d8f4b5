package backends

import (
	"errors"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// TestMatches: the default cluster is reused only when it is up as the
// runbook asks: Kafka version, node count, broker settings, every node up.
func TestMatches(t *testing.T) {
	up := func(states ...cluster.State) []cluster.Node {
		var nodes []cluster.Node
		for _, s := range states {
			nodes = append(nodes, cluster.Node{State: s})
		}
		return nodes
	}
	three := up(cluster.Running, cluster.Running, cluster.Running)
	acks := map[string]string{"min.insync.replicas": "2"}
	for _, c := range []struct {
		why    string
		st     cluster.Status
		kafka  string
		nodes  int
		broker map[string]string
		want   bool
	}{
		{"the same", cluster.Status{Kafka: "4.3.1", Nodes: three}, "4.3.1", 3, nil, true},
		{"no settings, none asked", cluster.Status{Kafka: "4.3.1", Nodes: three, Broker: map[string]string{}}, "4.3.1", 3, nil, true},
		{"the same settings", cluster.Status{Kafka: "4.3.1", Nodes: three, Broker: acks}, "4.3.1", 3, map[string]string{"min.insync.replicas": "2"}, true},
		{"a frozen node is up", cluster.Status{Kafka: "4.3.1", Nodes: up(cluster.Running, cluster.Paused, cluster.Running)}, "4.3.1", 3, nil, true},
		{"another version", cluster.Status{Kafka: "3.9.1", Nodes: three}, "4.3.1", 3, nil, false},
		{"other nodes", cluster.Status{Kafka: "4.3.1", Nodes: three}, "4.3.1", 5, nil, false},
		{"other settings", cluster.Status{Kafka: "4.3.1", Nodes: three, Broker: acks}, "4.3.1", 3, nil, false},
		{"a killed node", cluster.Status{Kafka: "4.3.1", Nodes: up(cluster.Running, cluster.Killed, cluster.Running)}, "4.3.1", 3, nil, false},
	} {
		if got := matches(c.st, c.kafka, c.nodes, c.broker); got != c.want {
			t.Errorf("%s: matches = %v, want %v", c.why, got, c.want)
		}
	}
}

// TestValidate: the flags of a run are refused, as the user's mistakes,
// before anything is opened.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		req  RunRequest
		want string // the backend, or an error's words
	}{
		{RunRequest{}, ""},
		{RunRequest{Kind: "docker"}, "docker"},
		{RunRequest{Options: Options{ClusterFile: "c.yaml"}}, "external"},
		{RunRequest{Kind: "podman"}, "error: use local, docker, kubernetes or external"},
		{RunRequest{AllowFaults: "c"}, "error: --allow-faults is for --attach"},
		{RunRequest{Attach: "c"}, "kubernetes"},
		{RunRequest{Attach: "c", Options: Options{Image: "i"}}, "kubernetes"},
		{RunRequest{Attach: "c", Kind: "docker"}, "error: --attach is for --backend kubernetes"},
		{RunRequest{Attach: "c", Keep: true}, "error: not kafkabook's to keep or remove"},
		{RunRequest{Attach: "c", AllowFaults: "d"}, "error: --allow-faults d does not name the attached cluster c"},
		{RunRequest{Attach: "c", Hurts: []string{"kill", "pause"}, Runbook: "f.md"}, "error: f.md hurts its cluster (kill) and --attach c names a cluster kafkabook did not start: add --allow-faults c to let it"},
		{RunRequest{Attach: "c", AllowFaults: "c", Hurts: []string{"kill"}}, "kubernetes"},
	} {
		got, err := c.req.validate()
		if want, ok := strings.CutPrefix(c.want, "error: "); ok {
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
				t.Errorf("validate(%+v) = %q, %v; want a UsageError saying %q", c.req, got, err, want)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("validate(%+v) = %q, %v; want %q", c.req, got, err, c.want)
		}
	}
}
