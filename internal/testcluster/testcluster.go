// Package testcluster brings up a real Kafka cluster for a test (local or
// docker backend) and takes it down when the test ends, pass or fail.
// Every cluster gets a unique name and its own state directory, so tests
// can run side by side. Faults is the fault table both backends pass.
package testcluster

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/docker"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
)

// Version is the Kafka version tests run against: $KAFKABOOK_TEST_KAFKA or
// the default.
func Version() string {
	if v := os.Getenv("KAFKABOOK_TEST_KAFKA"); v != "" {
		return v
	}
	return kafkadist.Default
}

// Require fails the test under CI=true, and skips it elsewhere, when the
// machine cannot run a local cluster: it needs root, java and mvn (or
// KAFKA_HOME). Under -short (the unit lane of make test) it skips: the
// cluster lane runs the test.
func Require(t testing.TB) {
	t.Helper()
	UnitLane(t)
	missing := Missing()
	if missing == "" {
		return
	}
	Lacks(t, "this test needs "+missing+" to run a real Kafka cluster")
}

// Lacks ends a test whose prerequisite is missing, as why says: under
// CI=true it fails (CI must provide every prerequisite, so a test never
// passes there by skipping), elsewhere it skips.
func Lacks(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI must provide it", why)
	}
	t.Skip(why)
}

// UnitLane skips a test that needs a real cluster, Docker or Kubernetes
// when it runs in the unit lane (go test -short): make test runs every
// package's cluster-free tests first, two packages at a time, so that a
// unit failure is reported within minutes, and then the tests that need a
// cluster, one package at a time. That skip is the lane's choice, not a
// missing prerequisite, so it holds under CI=true too.
func UnitLane(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a cluster: runs in the cluster lane of make test (go test without -short)")
	}
}

// Missing says what this machine lacks to run a local cluster: "" when
// nothing.
func Missing() string {
	switch {
	case os.Geteuid() != 0:
		return "root (network namespaces)"
	case !has("java"):
		return "java"
	case !has("mvn") && os.Getenv("KAFKA_HOME") == "":
		return "mvn or KAFKA_HOME"
	}
	return ""
}

// Condition serves testscript conditions the way Require serves tests:
// [cluster] holds when a local cluster can run here, [root] when this runs
// as root, [docker] when a Docker daemon answers, [full] in the full tier.
// When one of the first three does not hold under CI=true, that is an
// error (the script fails) instead of a skip. Under -short (the unit lane)
// [cluster] and [docker] do not hold, whatever the machine has: the
// cluster lane runs those scripts. Other conditions are unknown.
func Condition(cond string) (bool, error) {
	var missing string
	switch cond {
	case "full":
		return Full(), nil
	case "cluster", "docker":
		if testing.Short() {
			return false, nil
		}
	}
	switch cond {
	case "cluster":
		missing = Missing()
	case "root":
		if os.Geteuid() != 0 {
			missing = "root"
		}
	case "docker":
		if !docker.DaemonRunning(context.Background()) {
			missing = "a Docker daemon"
		}
	default:
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if missing != "" && os.Getenv("CI") == "true" {
		return false, fmt.Errorf("[%s] needs %s; CI must provide it", cond, missing)
	}
	return missing == "", nil
}

// Ready is the readiness a test cluster's Up waits for: the brokers
// registered and unfenced, as kafkabook's Kafka client sees them.
var Ready = kafka.Ready

func has(cmd string) bool { _, err := exec.LookPath(cmd); return err == nil }

// Name returns a fresh cluster name.
func Name() string {
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("t%x", b)
}

// Start brings up a cluster of n nodes with the given broker overrides,
// owned by the test: it registers its removal, and a check that nothing of
// it remains. Tests that can share a cluster call Shared instead; those
// that own one are a backend's own bring-up and fault table (local's
// TestFaults and TestDownNamesWhatItCannotRemove, and the docker,
// kubernetes and external backends' own starters), the power-loss layer's
// (startOnLayer), kafkabook killed with its cluster (TestKilledRuns) and
// packages with a single cluster test (internal/kafka).
func Start(t testing.TB, n int, broker map[string]string) (*local.Backend, cluster.Status) {
	t.Helper()
	return StartWith(t, cluster.Config{Kafka: Version(), Nodes: n, Broker: broker})
}

// StartWith is Start as cfg says (its name and Ready are the test's): a
// cluster a test upgrades starts on an older release than the one tests
// run against, and one whose quorum changes is formatted as a dynamic one.
func StartWith(t testing.TB, cfg cluster.Config) (*local.Backend, cluster.Status) {
	t.Helper()
	Require(t)
	t.Setenv("KAFKABOOK_STATE", t.TempDir())
	name := Name()
	b, err := local.New(name)
	if err != nil {
		t.Fatal(err)
	}
	leftovers := func() (left []string, _ error) {
		for _, l := range b.Leftovers() {
			left = append(left, l.String())
		}
		return left, nil
	}
	cfg.Name, cfg.Ready = name, Ready
	return b, bringUp(t, name, b, cfg, leftovers)
}

// bringUp brings b up as cfg says, after registering its removal and a
// check that leftovers then finds nothing of it: every backend's test
// cluster ends the same way, also when the test fails.
func bringUp(t testing.TB, name string, b cluster.Backend, cfg cluster.Config, leftovers func() ([]string, error)) cluster.Status {
	t.Helper()
	logf := func(format string, args ...any) { t.Logf(name+": "+format, args...) }
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		if err := b.Down(context.Background(), logf); err != nil {
			t.Errorf("cluster down: %v", err)
		}
		left, err := leftovers()
		if err != nil {
			t.Errorf("leftovers: %v", err)
		}
		for _, l := range left {
			t.Errorf("after down, %s remains", l)
		}
	})
	st, err := b.Up(ctx, cfg, logf)
	if err != nil {
		t.Fatalf("cluster up: %v", err)
	}
	return st
}
