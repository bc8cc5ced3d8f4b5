package local_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// privateNet marks the copy of the test binary that runs in a network
// namespace of its own.
const privateNet = "KAFKABOOK_TEST_PRIVATE_NET"

// TestBesideDocker does to a network namespace of its own what a running
// dockerd does to the host — bridge netfilter on, FORWARD policy DROP —
// and runs a cluster there: without its ACCEPT rule, up fails before any
// broker starts and names the cause; with it, the nodes form a cluster;
// down removes the rule, also when the state file is damaged. The host's
// own firewall is not touched. (CI runs every cluster test beside a real
// dockerd as well.)
func TestBesideDocker(t *testing.T) {
	if os.Getenv(privateNet) == "1" {
		besideDocker(t)
		return
	}
	testcluster.Require(t)
	requireTools(t, "unshare", "iptables")
	// The private namespace reaches no registry: fetch Kafka here first.
	if _, err := kafkadist.Install(context.Background(), testcluster.Version(), t.Logf); err != nil {
		t.Fatal(err)
	}
	unshared(t, "TestBesideDocker", privateNet, "a network namespace of its own", "--net")
}

func besideDocker(t *testing.T) {
	mustRun(t, "ip", "link", "set", "lo", "up")
	// What dockerd does, here only.
	if err := os.WriteFile("/proc/sys/net/bridge/bridge-nf-call-iptables", []byte("1"), 0o644); err != nil {
		t.Fatalf("bridge netfilter: %v", err)
	}
	mustRun(t, "iptables", "-P", "FORWARD", "DROP")

	t.Setenv("KAFKABOOK_STATE", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := cluster.Config{Kafka: testcluster.Version(), Nodes: 2, Ready: testcluster.Ready}

	// Without the rule: up fails before starting Kafka, naming the cause.
	local.SkipForwardRule(true)
	cfg.Name = testcluster.Name()
	b, err := local.New(cfg.Name)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = b.Up(ctx, cfg, t.Logf)
	local.SkipForwardRule(false)
	if err == nil {
		b.Down(ctx, t.Logf)
		t.Fatal("up succeeded with FORWARD dropping bridged frames and no rule")
	}
	t.Logf("up without the rule, after %s: %v", time.Since(start).Round(time.Millisecond), err)
	for _, want := range []string{"cannot reach", "checked before starting Kafka", "bridge-nf-call-iptables=1", "policy is DROP", "no ACCEPT rule for bridge kb"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("up's error does not say %q", want)
		}
	}
	if strings.Contains(err.Error(), "exited while starting") {
		t.Errorf("a JVM was started although the nodes cannot reach each other")
	}
	if left := b.Leftovers(); len(left) > 0 {
		t.Errorf("after the failed up: %v", left)
	}

	// With it: the nodes form a cluster.
	cfg.Name = testcluster.Name()
	if b, err = local.New(cfg.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Up(ctx, cfg, t.Logf); err != nil {
		b.Down(ctx, t.Logf)
		t.Fatalf("up beside a dropping FORWARD chain: %v", err)
	}
	rules := mustRun(t, "iptables", "-S", "FORWARD")
	if !strings.Contains(rules, `--comment "kafkabook cluster `+cfg.Name+`" -j ACCEPT`) {
		t.Errorf("no rule of cluster %s in FORWARD:\n%s", cfg.Name, rules)
	}
	if !strings.Contains(rules, "-P FORWARD DROP") {
		t.Errorf("the FORWARD policy changed:\n%s", rules)
	}
	// A crash that leaves a damaged state file: down still removes the rule.
	stateFile := os.Getenv("KAFKABOOK_STATE") + "/clusters/" + cfg.Name + "/state.json"
	if err := os.WriteFile(stateFile, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.Down(ctx, t.Logf); err != nil {
		t.Fatalf("down: %v", err)
	}
	if left := b.Leftovers(); len(left) > 0 {
		t.Errorf("after down: %v", left)
	}
	if rules := mustRun(t, "iptables", "-S", "FORWARD"); strings.Contains(rules, "kafkabook") {
		t.Errorf("after down, FORWARD still holds:\n%s", rules)
	}
}
