package docker_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/docker"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// TestFaults runs the fault table that the local backend passes against a
// Docker cluster from compose.yaml, its brokers under libfaketime; then
// down removes exactly that
// cluster: a container, network and volume of no cluster, and a container
// of a same-named cluster of another state root, stay.
func TestFaults(t *testing.T) {
	b, st := testcluster.StartDockerWith(t, cluster.Config{Kafka: testcluster.Version(), Nodes: 3, Broker: map[string]string{"replica.lag.time.max.ms": "3000"}, Clock: true})
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
	testCorrupt(t, b, cli, st.Name) // while the walk leaves k2 stopped
	testNetFaults(t, b, cli, st.Name)
	testcluster.Clock(t, b, kafka.Plain(st.Bootstrap()...))
	testDelay(t, b)
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
	_, err = b.Up(context.Background(), cluster.Config{Name: "nodaemon", Nodes: 3, Ready: testcluster.Ready}, t.Logf)
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
	_, err = b.Up(context.Background(), cluster.Config{Name: "noimage", Kafka: "0.0.1", Ready: testcluster.Ready}, t.Logf)
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
		if _, err := b.Up(context.Background(), cluster.Config{Name: name, Kafka: testcluster.Version(), Nodes: 3, Ready: testcluster.Ready}, t.Logf); err != nil {
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

// testNetFaults: the local backend's network faults work in containers
// too. A partition blocks container-to-container traffic while the host
// still reaches every node; one that keeps the quorum blocks only the
// inter-broker port (19092 in compose.yaml), not the controller port
// (9093); heal undoes it; loss 100% cuts a node off, 0% restores it.
func testNetFaults(t *testing.T, b *docker.Backend, cli *client.Client, name string) {
	ctx := context.Background()
	if err := b.Apply(ctx, cluster.Start, []string{"k2"}, t.Logf); err != nil { // the fault table leaves k2 stopped
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.HealNetwork(ctx); err != nil {
			t.Errorf("heal: %v", err)
		}
	})
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	pid, ip := map[string]string{}, map[string]string{}
	for _, c := range cs {
		if c.Labels["kafkabook.cluster"] != name || c.Labels["kafkabook.node"] == "" {
			continue
		}
		in, err := cli.ContainerInspect(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		n := c.Labels["kafkabook.node"]
		pid[n], ip[n] = fmt.Sprint(in.State.Pid), c.Labels["kafkabook.ip"]
	}
	// between opens a TCP connection from one container's namespace to
	// another's port, with the host's bash.
	between := func(from, to string, port int) bool {
		cmd := exec.Command("timeout", "3", "nsenter", "--target", pid[from], "--net",
			"bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/%s/%d", ip[to], port))
		return cmd.Run() == nil
	}
	// fromHost dials the node's client listener at its address on the
	// bridge, not its published port: Docker's userland proxy would
	// accept that connection whatever became of the container.
	fromHost := func(node string) bool {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(ip[node], "9092"), 3*time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}
	for start := time.Now(); !between("k2", "k1", 19092) || !fromHost("k2"); time.Sleep(200 * time.Millisecond) {
		if time.Since(start) > 60*time.Second {
			t.Fatal("k2 does not reach k1 a minute after start")
		}
	}
	if err := b.Partition(ctx, []string{"k1"}, []string{"k2", "k3"}, cluster.Cut{}); err != nil {
		t.Fatal(err)
	}
	if between("k2", "k1", 19092) || between("k1", "k3", 9093) {
		t.Error("k1 | k2 k3: traffic between the sides still flows")
	}
	if !between("k2", "k3", 19092) {
		t.Error("k1 | k2 k3: k2 cannot reach k3 on its own side")
	}
	for _, n := range []string{"k1", "k2", "k3"} {
		if !fromHost(n) {
			t.Errorf("k1 | k2 k3: the host cannot reach %s", n)
		}
	}
	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if !between("k2", "k1", 19092) {
		t.Error("after heal: k2 cannot reach k1")
	}
	if err := b.Partition(ctx, []string{"k1"}, []string{"k2", "k3"}, cluster.Cut{KeepQuorum: true}); err != nil {
		t.Fatal(err)
	}
	if between("k2", "k1", 19092) || !between("k2", "k1", 9093) {
		t.Errorf("k1 | k2 k3 --keep-quorum: broker port open %v, controller port open %v; want closed, open",
			between("k2", "k1", 19092), between("k2", "k1", 9093))
	}
	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Loss(ctx, "k1", 100); err != nil {
		t.Fatal(err)
	}
	if between("k2", "k1", 19092) || fromHost("k1") {
		t.Error("loss k1 100%: k1 still reachable")
	}
	if err := b.Loss(ctx, "k1", 0); err != nil {
		t.Fatal(err)
	}
	if !between("k2", "k1", 19092) || !fromHost("k1") {
		t.Error("loss k1 0%: k1 not reachable again")
	}
	// link: the token bucket lands in k1's namespace and heal removes it
	// (the rate it gives is measured on the local backend, whose
	// namespaces take the same rules).
	if err := b.Rate(ctx, "k1", 8_000_000); err != nil {
		t.Fatal(err)
	}
	if rules, err := b.Rules(ctx); err != nil || !strings.Contains(strings.Join(rules["k1"], " "), "rate 8Mbit") {
		t.Errorf("link k1 --rate 8mbit/s: k1's rules %v %v", rules["k1"], err)
	}
	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if rules, err := b.Rules(ctx); err != nil || len(rules["k1"]) > 0 {
		t.Errorf("after heal, k1's rules %v %v", rules["k1"], err)
	}
}

// testCorrupt cuts the tail of k2's segment (testcluster.Corrupt) and
// reads the file back where the daemon keeps k2's volume.
func testCorrupt(t *testing.T, b *docker.Backend, cli *client.Client, name string) {
	done := testcluster.Corrupt(t, b)
	var source string
	cs, err := cli.ContainerList(context.Background(), container.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Labels["kafkabook.node"] != "k2" || c.Labels["kafkabook.cluster"] != name {
			continue
		}
		for _, m := range c.Mounts {
			if m.Destination == "/var/lib/kafka/data" {
				source = m.Source
			}
		}
	}
	fi, err := os.Stat(filepath.Join(source, done.Segment))
	if err != nil || fi.Size() != done.CutTo {
		t.Errorf("k2's %s on the Docker host (%s): %v %v; Corrupt said it cut it to %d", done.Segment, source, fi, err, done.CutTo)
	}
}

// testDelay: link --delay in containers (testcluster.Delay), and the
// delayer the cluster's leftovers list until the heal stops it.
func testDelay(t *testing.T, b *docker.Backend) {
	delayers := func() int {
		t.Helper()
		left, err := b.Leftovers(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, l := range left {
			if strings.HasPrefix(l, "link delayer") {
				n++
			}
		}
		return n
	}
	testcluster.Delay(t, b, func(delayed bool) {
		if n, want := delayers(), map[bool]int{true: 1}[delayed]; n != want {
			t.Errorf("%d delayers run for the cluster (delayed: %v), want %d", n, delayed, want)
		}
	})
}
