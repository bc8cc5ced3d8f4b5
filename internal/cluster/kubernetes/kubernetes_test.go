package kubernetes_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/kubernetes"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// TestFaults runs the fault table the other backends pass against a
// cluster from kubernetes.yaml; then a kill whose restart Kafka logs as
// recovery after an unclean shutdown (and a stop whose restart it does
// not), partitions and loss between the pods, a clock step read back
// through Kafka (its brokers run under libfaketime), a slow link measured
// over the link, and down, after which
// nothing with the cluster's labels is left.
func TestFaults(t *testing.T) {
	start := time.Now()
	b, st := testcluster.StartKubernetesWith(t, cluster.Config{Kafka: testcluster.Version(), Nodes: 3, Broker: map[string]string{"replica.lag.time.max.ms": "3000"}, Clock: true})
	t.Logf("up after %.1fs", time.Since(start).Seconds())
	if st.Backend != kubernetes.Name || len(st.Nodes) != 3 || st.Broker["replica.lag.time.max.ms"] != "3000" {
		t.Fatalf("status %+v", st)
	}
	ns := b.Namespace(context.Background())
	for i, n := range st.Nodes {
		want := fmt.Sprintf("%s-combined-%d.%s-kafka-brokers.%s.svc.cluster.local:9092", st.Name, i+1, st.Name, ns)
		if n.Name != fmt.Sprintf("k%d", i+1) || n.ID != i+1 || n.Address != want || n.State != cluster.Running || n.PID == 0 {
			t.Errorf("node %d: %+v, want k%d at %s, running", i, n, i+1, want)
		}
	}
	testcluster.Faults(t, b, st)

	// Faults left k2 stopped: corrupt reaches its log directory, and its
	// restart finds a clean shutdown.
	testCorrupt(t, b, st.Name)
	testcluster.Apply(t, b, cluster.Start, "k2")
	waitRestartLog(t, b, "k2", "since clean shutdown file was found")
	// A kill leaves a node down until start; the restart recovers the log
	// on the same data, as after a crash.
	testcluster.Apply(t, b, cluster.Kill, "k3")
	time.Sleep(time.Second)
	testcluster.WantState(t, b, map[string]cluster.State{"k3": cluster.Killed, "k2": cluster.Running})
	testcluster.Apply(t, b, cluster.Start, "k3")
	waitRestartLog(t, b, "k3", "since no clean shutdown file was found")
	testcluster.WantState(t, b, map[string]cluster.State{"k3": cluster.Running})

	testNetFaults(t, b, st)
	access, err := b.Access(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	testcluster.Clock(t, b, kafka.Brokers{Seeds: st.Bootstrap(), Access: access})
	testcluster.Delay(t, b, nil)

	ctx := context.Background()
	if err := b.Down(ctx, t.Logf); err != nil {
		t.Fatalf("down: %v", err)
	}
	if left, err := b.Leftovers(ctx); err != nil || len(left) > 0 {
		t.Errorf("after down: %v %v", left, err)
	}
	if _, err := b.Status(ctx); !errors.Is(err, cluster.ErrNotFound) {
		t.Errorf("status after down: %v, want not found", err)
	}
	if err := b.Down(ctx, t.Logf); err != nil {
		t.Errorf("second down: %v", err)
	}
}

// waitRestartLog waits up to a minute for a line holding substr after the
// supervisor's last "started" line in a node's log.
func waitRestartLog(t *testing.T, b cluster.Backend, node, substr string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		rc, err := b.Logs(context.Background(), node)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(rc)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var found string
		for sc.Scan() {
			switch line := sc.Text(); {
			case strings.Contains(line, "[kafkabook supervisor]") && strings.Contains(line, " started (pid "):
				found = ""
			case strings.Contains(line, substr):
				found = line
			}
		}
		rc.Close()
		if found != "" {
			t.Logf("%s log after its restart: %s", node, found)
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("%s's log shows no %q after its last start within a minute", node, substr)
}

// testNetFaults checks partitions and loss between the pods: connections
// are opened with bash's /dev/tcp from one pod's faults container to
// another pod's address, and from the clients' pod.
func testNetFaults(t *testing.T, b *kubernetes.Backend, st cluster.Status) {
	ctx := context.Background()
	pod := func(node string) string { return st.Name + "-combined-" + strings.TrimPrefix(node, "k") }
	ip := map[string]string{}
	for _, n := range []string{"k1", "k2", "k3"} {
		out, err := b.PodIP(ctx, pod(n))
		if err != nil || out == "" {
			t.Fatalf("address of %s: %q %v", n, out, err)
		}
		ip[n] = out
	}
	// dial opens a TCP connection from a pod's container to a node's port.
	dial := func(fromPod, container, to string, port int) bool {
		_, err := b.Exec(ctx, fromPod, container, "timeout", "3", "bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/%s/%d", ip[to], port))
		return err == nil
	}
	between := func(from, to string, port int) bool { return dial(pod(from), "faults", to, port) }
	fromClients := func(to string) bool { return dial(st.Name+"-clients", "clients", to, 9092) }

	// Every broker listens (k3 was just started again).
	for start := time.Now(); !fromClients("k1") || !fromClients("k2") || !fromClients("k3"); time.Sleep(500 * time.Millisecond) {
		if time.Since(start) > time.Minute {
			t.Fatal("the clients' pod does not reach every broker a minute after start")
		}
	}
	if err := b.Partition(ctx, []string{"k1"}, []string{"k2", "k3"}, cluster.Cut{}); err != nil {
		t.Fatal(err)
	}
	if between("k2", "k1", 9092) || between("k1", "k3", 9093) {
		t.Error("k1 | k2 k3: traffic between the sides still flows")
	}
	if !between("k2", "k3", 9092) {
		t.Error("k1 | k2 k3: k2 cannot reach k3 on its own side")
	}
	for _, n := range []string{"k1", "k2", "k3"} {
		if !fromClients(n) {
			t.Errorf("k1 | k2 k3: the clients' pod cannot reach %s", n)
		}
	}
	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if !between("k2", "k1", 9092) {
		t.Error("after heal: k2 cannot reach k1")
	}
	if err := b.Partition(ctx, []string{"k1"}, []string{"k2", "k3"}, cluster.Cut{KeepQuorum: true}); err != nil {
		t.Fatal(err)
	}
	if broker, controller := between("k2", "k1", 9092), between("k2", "k1", 9093); broker || !controller {
		t.Errorf("k1 | k2 k3 --keep-quorum: broker port open %v, controller port open %v; want closed, open", broker, controller)
	}
	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Loss(ctx, "k1", 100); err != nil {
		t.Fatal(err)
	}
	if between("k2", "k1", 9092) || fromClients("k1") {
		t.Error("loss k1 100%: k1 still reachable")
	}
	if err := b.Loss(ctx, "k1", 0); err != nil {
		t.Fatal(err)
	}
	if !between("k2", "k1", 9092) || !fromClients("k1") {
		t.Error("loss k1 0%: k1 not reachable again")
	}
	// link: the token bucket lands in k1's pod and heal removes it (the
	// rate it gives is measured on the local backend: the same rules).
	qdisc := func() string {
		out, _ := b.Exec(ctx, pod("k1"), "faults", "tc", "qdisc", "show")
		return out
	}
	if err := b.Rate(ctx, "k1", 8_000_000); err != nil {
		t.Fatal(err)
	}
	if q := qdisc(); !strings.Contains(q, "tbf") || !strings.Contains(q, "rate 8Mbit") {
		t.Errorf("link k1 --rate 8mbit/s: k1's qdiscs %q", q)
	}
	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if q := qdisc(); strings.Contains(q, "tbf") {
		t.Errorf("after heal, k1's qdiscs %q", q)
	}
	// Isolation cuts the clients off too; rejoin restores it.
	testcluster.Apply(t, b, cluster.Isolate, "k1")
	if between("k2", "k1", 9092) || fromClients("k1") {
		t.Error("isolate k1: k1 still reachable")
	}
	testcluster.Apply(t, b, cluster.Rejoin, "k1")
	if !between("k2", "k1", 9092) || !fromClients("k1") {
		t.Error("rejoin k1: k1 not reachable again")
	}
}

// TestRefusals: a cluster that would need a power-loss layer is refused
// before anything is asked of Kubernetes, and a kubeconfig that does not
// exist is named with what to do.
func TestRefusals(t *testing.T) {
	b, err := kubernetes.New("refused", kubernetes.Options{Kubeconfig: t.TempDir() + "/none"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = b.Up(ctx, cluster.Config{Nodes: 3, PowerLoss: true, Ready: testcluster.Ready}, t.Logf)
	if err == nil || !strings.Contains(err.Error(), "cannot cut a node's power") {
		t.Errorf("up with power loss: %v", err)
	}
	_, err = b.Up(ctx, cluster.Config{Nodes: 3, Ready: testcluster.Ready}, t.Logf)
	if err == nil || !strings.Contains(err.Error(), "--kubeconfig") {
		t.Errorf("up without a kubeconfig: %v", err)
	}
	if _, err := kubernetes.New("Bad_Name", kubernetes.Options{}); err == nil {
		t.Error("New accepted a name that is no DNS label")
	}
}

// testCorrupt cuts the tail of k2's segment (testcluster.Corrupt) and
// reads the file's size back in k2's kafka container.
func testCorrupt(t *testing.T, b *kubernetes.Backend, name string) {
	done := testcluster.Corrupt(t, b)
	out, err := b.Exec(context.Background(), name+"-combined-2", "kafka", "stat", "-c", "%s", "/var/lib/kafka/data/"+done.Segment)
	if size := strings.TrimSpace(out); err != nil || size != fmt.Sprint(done.CutTo) {
		t.Errorf("k2's %s in its pod: %q bytes (%v); Corrupt said it cut it to %d", done.Segment, size, err, done.CutTo)
	}
}
