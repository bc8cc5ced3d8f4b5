package docker_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/cluster"
	"github.com/kafkabook/kafkabook/cluster/docker"
	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// TestFaults runs the fault table that the local backend passes against a
// Docker cluster from compose.yaml; then down removes exactly that
// cluster: a container, network and volume of no cluster, and a container
// of a same-named cluster of another state root, stay.
func TestFaults(t *testing.T) {
	b, st := testcluster.StartDocker(t, map[string]string{"replica.lag.time.max.ms": "3000"})
	if st.Backend != docker.Name || len(st.Nodes) != 3 {
		t.Fatalf("status %+v", st)
	}
	testcluster.Faults(t, b, st)

	ctx := context.Background()
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	foreign := "kbforeign-" + st.Name
	mk := func(labels map[string]string, name string) string {
		c, err := cli.ContainerCreate(ctx, &container.Config{Image: docker.ImageName(testcluster.Version()), Entrypoint: []string{"sleep", "600"}, Labels: labels}, nil, nil, nil, name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cli.ContainerRemove(context.Background(), c.ID, container.RemoveOptions{Force: true}) })
		return c.ID
	}
	plain := mk(nil, foreign)
	twin := mk(map[string]string{"kafkabook.cluster": st.Name, "kafkabook.root": "/elsewhere"}, foreign+"-twin")
	if _, err := cli.NetworkCreate(ctx, foreign, network.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.NetworkRemove(context.Background(), foreign) })
	if _, err := cli.VolumeCreate(ctx, volume.CreateOptions{Name: foreign}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.VolumeRemove(context.Background(), foreign, true) })

	if err := b.Down(ctx, t.Logf); err != nil {
		t.Fatalf("down: %v", err)
	}
	if left, err := b.Leftovers(ctx); err != nil || len(left) > 0 {
		t.Errorf("after down: %v %v", left, err)
	}
	for _, id := range []string{plain, twin} {
		if _, err := cli.ContainerInspect(ctx, id); err != nil {
			t.Errorf("down removed a container not of its cluster: %v", err)
		}
	}
	if _, err := cli.NetworkInspect(ctx, foreign, network.InspectOptions{}); err != nil {
		t.Errorf("down removed a network not of its cluster: %v", err)
	}
	if _, err := cli.VolumeInspect(ctx, foreign); err != nil {
		t.Errorf("down removed a volume not of its cluster: %v", err)
	}
	if _, err := b.Status(ctx); !errors.Is(err, cluster.ErrNotFound) {
		t.Errorf("status after down: %v, want not found", err)
	}
	if err := b.Down(ctx, t.Logf); err != nil {
		t.Errorf("second down: %v", err)
	}
}

// TestNoDaemon: without a Docker daemon, up says how to start one.
func TestNoDaemon(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	t.Setenv("KAFKABOOK_STATE", t.TempDir())
	b, err := docker.New("nodaemon", docker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Up(context.Background(), cluster.Config{Name: "nodaemon", Nodes: 3}, t.Logf)
	if !errors.Is(err, docker.ErrNoDaemon) || !strings.Contains(err.Error(), "dockerd") {
		t.Errorf("up without a daemon: %v", err)
	}
}

// TestImageMissing: an image that is not there and cannot be pulled is an
// error that says how to build one, and up leaves nothing behind.
func TestImageMissing(t *testing.T) {
	testcluster.RequireDocker(t)
	t.Setenv("KAFKABOOK_STATE", t.TempDir())
	b, err := docker.New("noimage", docker.Options{Image: "kafkabook/kafka:0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Up(context.Background(), cluster.Config{Name: "noimage", Kafka: "0.0.1"}, t.Logf)
	if err == nil || !strings.Contains(err.Error(), "kafkabook image build --kafka 0.0.1") {
		t.Errorf("up with a missing image: %v", err)
	}
	if left, err := b.Leftovers(context.Background()); err != nil || len(left) > 0 {
		t.Errorf("after the failed up: %v %v", left, err)
	}
}

// reapChild marks the copy of the test binary that starts a private
// cluster and is then killed.
const reapChild = "KAFKABOOK_TEST_REAP_CHILD"

// TestReapAbandoned: a private Docker cluster (not kept) whose owner is
// SIGKILLed is removed by the next Reap, and only it.
func TestReapAbandoned(t *testing.T) {
	if name := os.Getenv(reapChild); name != "" {
		b, err := docker.New(name, docker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Up(context.Background(), cluster.Config{Name: name, Kafka: testcluster.Version(), Nodes: 3}, t.Logf); err != nil {
			t.Fatal(err)
		}
		fmt.Println("CLUSTER UP")
		time.Sleep(10 * time.Minute)
		return
	}
	testcluster.RequireDocker(t)
	testcluster.DockerImage(t)
	t.Setenv("KAFKABOOK_STATE", t.TempDir())
	name := testcluster.Name()
	b, err := docker.New(name, docker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Down(context.Background(), t.Logf) })
	child := exec.Command(os.Args[0], "-test.run=^TestReapAbandoned$", "-test.v")
	child.Env = append(os.Environ(), reapChild+"="+name)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = child.Stdout
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	up := false
	for sc.Scan() {
		if sc.Text() == "CLUSTER UP" {
			up = true
			break
		}
		t.Log(sc.Text())
	}
	child.Process.Kill()
	child.Wait()
	if !up {
		t.Fatal("the child did not bring its cluster up")
	}
	st, err := b.Status(context.Background())
	if err != nil || len(st.Nodes) != 3 || !st.Nodes[0].State.Up() {
		t.Fatalf("the private cluster is not up after its owner died (containers outlive it until reaped): %+v %v", st, err)
	}
	reaped := docker.Reap(context.Background())
	if len(reaped) != 1 || reaped[0].Name != name || reaped[0].Err != nil {
		t.Errorf("reap: %+v, want only %s removed", reaped, name)
	}
	if left, err := b.Leftovers(context.Background()); err != nil || len(left) > 0 {
		t.Errorf("after reap: %v %v", left, err)
	}
}
