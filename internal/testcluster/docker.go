package testcluster

import (
	"context"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/docker"
)

// RequireDocker fails the test under CI=true, and skips it elsewhere, when
// no Docker daemon answers.
func RequireDocker(t testing.TB) {
	t.Helper()
	UnitLane(t)
	if docker.DaemonRunning(context.Background()) {
		return
	}
	Lacks(t, "this test needs a Docker daemon (.ci/run starts one)")
}

// DockerImage makes sure the image the docker backend runs is there:
// apache/kafka:VERSION when the host has it, else kafkabook/kafka:VERSION,
// built (once per host; the Debian base is cached) when missing.
func DockerImage(t testing.TB) { DockerImageOf(t, Version()) }

// DockerImageOf is DockerImage for Kafka release version.
func DockerImageOf(t testing.TB, version string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := docker.BuildImage(ctx, version, false, t.Logf)
	if err != nil {
		t.Fatalf("kafkabook image build: %v", err)
	}
	if res.Rebuilt {
		t.Logf("built %s in %.1fs", res.Image, time.Since(start).Seconds())
	}
}

// StartDocker brings up a Docker cluster (the compose file's three nodes)
// with the given broker overrides under a fresh state root, and registers
// its removal and a check that no container, network or volume of it
// remains.
func StartDocker(t testing.TB, broker map[string]string) (*docker.Backend, cluster.Status) {
	t.Helper()
	return StartDockerWith(t, cluster.Config{Kafka: Version(), Nodes: 3, Broker: broker})
}

// StartDockerWith is StartDocker as cfg says (its name and Ready are the
// test's): a cluster a test upgrades starts on an older release.
func StartDockerWith(t testing.TB, cfg cluster.Config) (*docker.Backend, cluster.Status) {
	t.Helper()
	RequireDocker(t)
	DockerImageOf(t, cfg.Kafka)
	t.Setenv("KAFKABOOK_STATE", t.TempDir())
	name := Name()
	b, err := docker.New(name, docker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name, cfg.Ready = name, Ready
	return b, bringUp(t, name, b, cfg, func() ([]string, error) { return b.Leftovers(context.Background()) })
}
