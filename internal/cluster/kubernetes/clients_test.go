package kubernetes

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/consumer"
	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/internal/subcommand"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestMain lets the test binary be what the client pod runs: the relay and
// consumer group members (the launcher copies os.Executable there).
func TestMain(m *testing.M) {
	subcommand.Run(os.Args) // the client processes kafkabook starts from os.Executable
	os.Exit(m.Run())
}

// testKubeconfig is a kubeconfig whose API server answers: KUBECONFIG, else
// the one scripts/kubernetes-up.sh writes. Without one the test is skipped,
// and fails under CI=true.
func testKubeconfig(t *testing.T) string {
	t.Helper()
	if testing.Short() { // testcluster.UnitLane, which this package's tests cannot import
		t.Skip("needs Kubernetes: runs in the cluster lane of make test (go test without -short)")
	}
	path := os.Getenv("KUBECONFIG")
	if path == "" {
		path = ScriptKubeconfig
	}
	if why := Available(context.Background(), path); why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no Kubernetes to test against (%s): run scripts/kubernetes-up.sh", why)
		}
		t.Skipf("no Kubernetes to test against (%s): run scripts/kubernetes-up.sh", why)
	}
	return path
}

// testNamespace creates a namespace of the test's own, deleted when the
// test ends (also on failure), with everything in it.
func testNamespace(t *testing.T, kubeconfig, prefix string) (*api, string) {
	t.Helper()
	a, err := connect(kubeconfig, "default")
	if err != nil {
		t.Fatal(err)
	}
	name := prefix + "-" + randomSuffix()
	ctx := context.Background()
	if _, err := a.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		zero := int64(0)
		// Pods first without a grace period, so that the namespace goes fast.
		a.cs.CoreV1().Pods(name).DeleteCollection(context.Background(), metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
		if err := a.cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting namespace %s: %v", name, err)
		}
	})
	// Pods wait for the namespace's default service account.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if _, err := a.cs.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{}); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("namespace %s has no default service account after 30s: %v", name, err)
		}
	}
	return &api{cfg: a.cfg, cs: a.cs, namespace: name}, name
}

func randomSuffix() string {
	b := make([]byte, 3)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// deploy starts a cluster of n nodes called name in namespace ns with the
// deployed backend, and takes it down when the test ends.
func deploy(t *testing.T, kubeconfig, ns, name string, n int) (*Backend, cluster.Status) {
	t.Helper()
	b, err := New(name, Options{Kubeconfig: kubeconfig, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	t.Cleanup(func() { b.Down(context.Background(), t.Logf) })
	start := time.Now()
	st, err := b.Up(ctx, cluster.Config{Name: name, Kafka: kafkadist.Default, Nodes: n, Ready: kafka.Ready}, t.Logf)
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	t.Logf("cluster %s: %d nodes up in %v", name, n, time.Since(start).Round(time.Millisecond))
	return b, st
}

// TestClientPod runs kafkabook's clients from a deployed cluster's client
// pod: connections relayed from it (their cost measured), isolation and a
// partition as a pod meets them, and a consumer group member started
// there and SIGKILLed.
func TestClientPod(t *testing.T) {
	kc := testKubeconfig(t)
	_, ns := testNamespace(t, kc, "kbclients")
	b, st := deploy(t, kc, ns, "c"+randomSuffix(), 3)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	access, err := b.Access(ctx)
	if err != nil {
		t.Fatal(err)
	}
	addr := map[string]string{}
	for _, n := range st.Nodes {
		addr[n.Name] = n.Address
	}
	topic := "relay-" + randomSuffix()

	t.Run("dial and produce", func(t *testing.T) {
		var dials []time.Duration
		for range 10 {
			start := time.Now()
			c, err := access.Dial(ctx, "tcp", addr["k1"])
			if err != nil {
				t.Fatal(err)
			}
			dials = append(dials, time.Since(start))
			c.Close()
		}
		slices.Sort(dials)
		t.Logf("relayed dial: median %v, max %v (10 dials)", dials[5].Round(time.Millisecond), dials[9].Round(time.Millisecond))
		relayed, relayedRTT := produce(t, ctx, st.Bootstrap(), access.Dial, topic, 10000)
		direct, directRTT := produce(t, ctx, st.Bootstrap(), b.directDial(t), topic, 10000)
		t.Logf("10,000 × 100 B, acks=all, one partition of 3 replicas: relayed %v, direct from this machine %v", relayed.Round(time.Millisecond), direct.Round(time.Millisecond))
		t.Logf("one record at a time (100 sync produces), median round trip: relayed %v, direct %v", relayedRTT.Round(10*time.Microsecond), directRTT.Round(10*time.Microsecond))
	})

	t.Run("isolate cuts the relay", func(t *testing.T) {
		if err := b.Apply(ctx, cluster.Isolate, []string{"k3"}, t.Logf); err != nil {
			t.Fatal(err)
		}
		dctx, dcancel := context.WithTimeout(ctx, 5*time.Second)
		c, err := access.Dial(dctx, "tcp", addr["k3"])
		dcancel()
		var ne net.Error
		if err == nil {
			c.Close()
			t.Error("a relayed dial reached the isolated k3")
		} else if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("dial of isolated k3: %v, want a timeout as a net.Error", err)
		} else {
			t.Logf("dial of isolated k3: %v", err)
		}
		// A refused dial is a net.OpError around ECONNREFUSED, as franz-go
		// expects of a broker between two lives.
		host, _, _ := net.SplitHostPort(addr["k1"])
		_, err = access.Dial(ctx, "tcp", net.JoinHostPort(host, "9099"))
		if !errors.Is(err, syscall.ECONNREFUSED) || !errors.As(err, &ne) {
			t.Errorf("dial of a closed port: %v, want a net.OpError around ECONNREFUSED", err)
		}
		_, err = access.Dial(ctx, "tcp", "no-such-pod."+host[strings.Index(host, ".")+1:]+":9092")
		var dns *net.DNSError
		if !errors.As(err, &dns) || !dns.IsNotFound {
			t.Errorf("dial of an unknown name: %v, want a DNS error, not found", err)
		}
		if err := b.Apply(ctx, cluster.Rejoin, []string{"k3"}, t.Logf); err != nil {
			t.Fatal(err)
		}
		c, err = access.Dial(ctx, "tcp", addr["k3"])
		if err != nil {
			t.Fatalf("dial of k3 after rejoin: %v", err)
		}
		c.Close()
	})

	t.Run("partition spares the client pod", func(t *testing.T) {
		if err := b.Partition(ctx, []string{"k1"}, []string{"k2", "k3"}, cluster.Cut{}); err != nil {
			t.Fatal(err)
		}
		defer b.HealNetwork(context.WithoutCancel(ctx))
		if reach(ctx, b, "k2", addr["k1"]) {
			t.Error("k2's pod reaches k1's broker through the partition")
		}
		c, err := access.Dial(ctx, "tcp", addr["k1"])
		if err != nil {
			t.Fatalf("the client pod does not reach k1 during a partition between brokers: %v", err)
		}
		c.Close()
		if err := b.HealNetwork(ctx); err != nil {
			t.Fatal(err)
		}
		if !reach(ctx, b, "k2", addr["k1"]) {
			t.Error("k2's pod does not reach k1's broker after the heal")
		}
	})

	t.Run("launched member is SIGKILLed", func(t *testing.T) {
		l, err := b.Launcher(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sp := consumer.Spec{
			Brokers: st.Bootstrap(), Topic: topic, Group: "g-" + randomSuffix(), Member: 1,
			Commit: consumer.CommitAfter, Batch: 100, Dedup: consumer.DedupNone, Store: "/tmp/kafkabook-test-" + randomSuffix() + ".db",
		}
		line, err := driver.FranzGoMemberLine(sp)
		if err != nil {
			t.Fatal(err)
		}
		exe, _ := os.Executable()
		var stderr strings.Builder
		// franz-go's driver as a member: its spec line on stdin, which
		// stays open (the member kills itself when it ends).
		p, err := l.Start(ctx, launch.Command{Argv: []string{exe, driver.FranzGoSubcommand}, Stderr: &stderr})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Stdin().Write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(p.Stdout())
		lines := 0
		for lines < 20 && sc.Scan() {
			lines++
		}
		if lines < 20 {
			t.Fatalf("the member reported %d lines before its stdout ended: %s", lines, stderr.String())
		}
		c := b.clientsForTest(t)
		if _, err := c.api.run(ctx, c.pod, c.container, "test", "-d", fmt.Sprintf("/proc/%d", p.Pid())); err != nil {
			t.Fatalf("pid %d is not a process in the client pod: %v", p.Pid(), err)
		}
		// pause consumer and resume consumer: the pod's /proc says the
		// state before Signal returns.
		state := func() string {
			out, _ := c.api.run(ctx, c.pod, c.container, "sh", "-c", fmt.Sprintf("cut -d')' -f2 /proc/%d/stat | cut -c2", p.Pid()))
			return strings.TrimSpace(out)
		}
		if err := p.Signal(syscall.SIGSTOP); err != nil || state() != "T" {
			t.Errorf("SIGSTOP: %v, state %q; want T", err, state())
		}
		if err := p.Signal(syscall.SIGCONT); err != nil || state() == "T" {
			t.Errorf("SIGCONT: %v, state %q; want not T", err, state())
		}
		if err := p.Signal(0); err != nil {
			t.Errorf("signal 0 to a running member: %v", err)
		}
		if err := p.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() { // everything up to EOF
		}
		exit, err := p.Wait()
		if exit.Signal != syscall.SIGKILL || err == nil {
			t.Errorf("Wait: %+v, %v; want SIGKILL, and an error as os/exec gives", exit, err)
		}
		if _, err := c.api.run(ctx, c.pod, c.container, "test", "-d", fmt.Sprintf("/proc/%d", p.Pid())); err == nil {
			t.Errorf("pid %d is still there after SIGKILL", p.Pid())
		}
		if err := p.Signal(0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("signal 0 after SIGKILL: %v, want ESRCH from the pod", err)
		}
		// The member's store comes back to the same path here.
		defer os.Remove(sp.Store)
		if err := launch.Retrieve(ctx, l, sp.Store); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(sp.Store); err != nil || fi.Size() == 0 {
			t.Errorf("the member's store fetched from the pod: %v", err)
		}
	})

	// Producer drivers in the pod: franz-go's (this binary) and
	// librdkafka's (a virtual environment made here, run under the pod's
	// python3).
	for _, client := range []string{"franz-go", "librdkafka"} {
		t.Run(client+" producer in the pod", func(t *testing.T) {
			l, err := b.Launcher(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var p *driver.Producer
			if client == "franz-go" {
				exe, _ := os.Executable()
				p, err = driver.FranzGo(exe, l, cluster.Access{}).StartFranzGo(ctx, driver.FranzGoSpec{Brokers: st.Bootstrap(),
					Produce: kafka.ProduceSpec{Topic: topic, From: 1, Count: 10, Properties: map[string]string{"acks": "all", "delivery.timeout.ms": "30000"}}})
			} else {
				d, ierr := driver.Install(ctx, driver.Ref{Client: client}, t.Logf)
				if ierr != nil {
					t.Fatal(ierr)
				}
				d.Launcher = l
				p, err = d.StartProducer(ctx, driver.Spec{Topic: topic, Bootstrap: st.Bootstrap(), From: 1, Count: 10})
			}
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			t.Logf("%s", p.Startup().Describe())
			ok := 0
			if _, err := p.Run(ctx, func(r driver.Result) {
				if r.Status == results.StatusOK && r.Offset >= 0 {
					ok++
				}
			}); err != nil {
				t.Fatal(err)
			}
			if ok != 10 {
				t.Errorf("%d of 10 acknowledged with an offset", ok)
			}
		})
	}

	t.Run("same JRE as here", func(t *testing.T) {
		// The Java driver's class archive (driver.jsa) is made by this
		// machine's JVM and maps only into the same JVM build.
		c := b.clientsForTest(t)
		pod, err := c.api.run(ctx, c.pod, c.container, "sh", "-c", "readlink -f $(command -v java); java -version 2>&1 | head -2")
		if err != nil {
			t.Fatalf("java in the client pod: %v", err)
		}
		here, _ := exec.Command("sh", "-c", "readlink -f $(command -v java); java -version 2>&1 | head -2").Output()
		t.Logf("client pod: %s", strings.ReplaceAll(strings.TrimSpace(pod), "\n", " | "))
		t.Logf("this machine: %s", strings.ReplaceAll(strings.TrimSpace(string(here)), "\n", " | "))
	})

	t.Run("copy once per content", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(dir+"/sub", 0o755)
		os.WriteFile(dir+"/sub/a.txt", []byte("first\n"), 0o644)
		os.Symlink("sub/a.txt", dir+"/link")
		c := b.clientsForTest(t)
		if err := c.copyIn(ctx, dir); err != nil {
			t.Fatal(err)
		}
		out, err := c.api.run(ctx, c.pod, c.container, "cat", dir+"/link")
		if err != nil || out != "first\n" {
			t.Fatalf("the copy in the pod: %q, %v", out, err)
		}
		// A second copy of the same content, by another client, is skipped.
		if _, err := c.api.run(ctx, c.pod, c.container, "sh", "-c", "echo changed >"+dir+"/sub/a.txt"); err != nil {
			t.Fatal(err)
		}
		if err := b.clientsForTest(t).copyIn(ctx, dir); err != nil {
			t.Fatal(err)
		}
		if out, _ := c.api.run(ctx, c.pod, c.container, "cat", dir+"/sub/a.txt"); out != "changed\n" {
			t.Errorf("the second copy of the same content was not skipped: %q", out)
		}
		// New content is copied.
		os.WriteFile(dir+"/sub/a.txt", []byte("second\n"), 0o644)
		if err := c.copyIn(ctx, dir); err != nil {
			t.Fatal(err)
		}
		if out, _ := c.api.run(ctx, c.pod, c.container, "cat", dir+"/sub/a.txt"); out != "second\n" {
			t.Errorf("changed content was not copied: %q", out)
		}
	})
}

// produce sends count records of 100 bytes to topic (made with three
// replicas if missing) through dial, acks=all, and returns how long
// they took after the client connected; then the median round trip of
// 100 records produced one at a time.
func produce(t *testing.T, ctx context.Context, seeds []string, dial func(context.Context, string, string) (net.Conn, error), topic string, count int) (time.Duration, time.Duration) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.Dialer(dial), kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 3, nil, topic); err != nil && !strings.Contains(err.Error(), "TOPIC_ALREADY_EXISTS") {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, kgo.StringRecord("warm-up")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	value := make([]byte, 100)
	start := time.Now()
	errs := make(chan error, count)
	for range count {
		cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) { errs <- err })
	}
	for range count {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	took := time.Since(start)
	var rtts []time.Duration
	for range 100 {
		start := time.Now()
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: value}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		rtts = append(rtts, time.Since(start))
	}
	slices.Sort(rtts)
	return took, rtts[50]
}

// directDial dials brokers from this machine by their pods' addresses,
// which a single-node cluster here routes: the baseline of the relay.
func (b *Backend) directDial(t *testing.T) func(context.Context, string, string) (net.Conn, error) {
	a, err := b.client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, _ := net.SplitHostPort(addr)
		pod, _, _ := strings.Cut(host, ".")
		p, err := a.cs.CoreV1().Pods(a.namespace).Get(ctx, pod, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		var d net.Dialer
		return d.DialContext(ctx, network, net.JoinHostPort(p.Status.PodIP, port))
	}
}

// clientsForTest is the deployed cluster's client pod.
func (b *Backend) clientsForTest(t *testing.T) *clients {
	a, err := b.client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c, err := newClients(a, b.clientPod())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// reach says whether a TCP connection from node's pod (its faults
// container) to addr opens within 3 seconds.
func reach(ctx context.Context, b *Backend, node, addr string) bool {
	a, _ := b.client(ctx)
	host, port, _ := net.SplitHostPort(addr)
	pod := b.name + "-" + Pool + "-" + strings.TrimPrefix(node, "k")
	_, err := a.run(ctx, pod, containerFaults, "timeout", "3", "bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/%s/%s", host, port))
	return err == nil
}

// TestAttach attaches to a cluster by its pods' labels (a deployed one,
// labelled as Strimzi labels its pods) next to a foreign pod labelled as
// another cluster's broker: faults are refused without --allow-faults,
// hit only the attached cluster's pods with it, and Down removes only
// kafkabook's client pod.
func TestAttach(t *testing.T) {
	kc := testKubeconfig(t)
	a, ns := testNamespace(t, kc, "kbattach")
	name := "a" + randomSuffix()
	_, _ = deploy(t, kc, ns, name, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	other := "o" + randomSuffix()
	strimziName = "s" + randomSuffix()
	foreign := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: other + "-" + Pool + "-1", Labels: map[string]string{
			labelStrimziCluster: other, labelBrokerRole: "true", labelPool: Pool,
		}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: containerKafka, Image: "kafkabook/kafka:" + kafkadist.Default, ImagePullPolicy: corev1.PullNever,
			Command: []string{"sleep", "infinity"},
		}}},
	}
	if _, err := a.cs.CoreV1().Pods(ns).Create(ctx, foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	foreignBefore := waitPodRunning(t, ctx, a, foreign.Name)

	refused, err := Attach(name, AttachOptions{Kubeconfig: kc, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	st, err := refused.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Nodes) != 1 || st.Nodes[0].Name != "k1" || st.Nodes[0].State != cluster.Running {
		t.Fatalf("attached status: %+v, want k1 running", st.Nodes)
	}
	if err := refused.Apply(ctx, cluster.Kill, []string{"k1"}, t.Logf); err == nil || !strings.Contains(err.Error(), "--allow-faults "+name) {
		t.Errorf("kill without --allow-faults: %v, want a refusal naming --allow-faults", err)
	}
	if _, err := Attach(name, AttachOptions{Kubeconfig: kc, Namespace: ns, AllowFaults: other}); err == nil {
		t.Error("--allow-faults naming another cluster was accepted")
	}

	at, err := Attach(name, AttachOptions{Kubeconfig: kc, Namespace: ns, AllowFaults: name})
	if err != nil {
		t.Fatal(err)
	}
	access, err := at.Access(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := access.Dial(ctx, "tcp", st.Nodes[0].Address)
	if err != nil {
		t.Fatalf("dial k1 from kafkabook's client pod: %v", err)
	}
	c.Close()
	for _, step := range []struct {
		op   cluster.Op
		want cluster.State
	}{{cluster.Pause, cluster.Paused}, {cluster.Resume, cluster.Running}, {cluster.Kill, cluster.Killed}, {cluster.Start, cluster.Running}} {
		if err := at.Apply(ctx, step.op, []string{"k1"}, t.Logf); err != nil {
			t.Fatal(err)
		}
		st, err := at.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Nodes[0].State; got != step.want {
			t.Errorf("after %s: k1 %s, want %s", step.op, got, step.want)
		}
	}
	if err := at.Apply(ctx, cluster.Kill, []string{"k2"}, t.Logf); err == nil {
		t.Error("kill of k2, which the attached cluster does not have, was accepted")
	}
	t.Run("strimzi-shaped", func(t *testing.T) { attachStrimziShaped(t, ctx, kc, a) })
	if err := at.Down(ctx, t.Logf); err != nil {
		t.Fatal(err)
	}
	pods, err := a.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	want := []string{name + "-clients", name + "-" + Pool + "-1", foreign.Name, strimziName + "-broker-0"}
	sort.Strings(want)
	if !slices.Equal(names, want) {
		t.Errorf("pods after the attached Down: %v, want %v (only kafkabook's client pod removed)", names, want)
	}
	foreignAfter := waitPodRunning(t, ctx, a, foreign.Name)
	if foreignAfter.UID != foreignBefore.UID || restarts(foreignAfter) != restarts(foreignBefore) || !foreignAfter.Status.StartTime.Equal(foreignBefore.Status.StartTime) {
		t.Errorf("the foreign pod changed: uid %s→%s, restarts %d→%d, started %v→%v", foreignBefore.UID, foreignAfter.UID, restarts(foreignBefore), restarts(foreignAfter), foreignBefore.Status.StartTime, foreignAfter.Status.StartTime)
	}
}

// waitPodRunning waits for a pod to run and returns it.
func waitPodRunning(t *testing.T, ctx context.Context, a *api, pod string) *corev1.Pod {
	t.Helper()
	for {
		p, err := a.cs.CoreV1().Pods(a.namespace).Get(ctx, pod, metav1.GetOptions{})
		if err == nil && running(*p, containerKafka) {
			return p
		}
		select {
		case <-ctx.Done():
			t.Fatalf("pod %s does not run: %v", pod, err)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

func restarts(p *corev1.Pod) int32 {
	var n int32
	for _, s := range p.Status.ContainerStatuses {
		n += s.RestartCount
	}
	return n
}

// strimziName is the cluster of attachStrimziShaped's pod.
var strimziName string

// attachStrimziShaped attaches to a one-node Kafka in a pod shaped like
// Strimzi's (its labels, a name <cluster>-<pool>-<id>, the broker's JVM a
// child of the container's first process, no faults container): kill,
// pause and resume signal the JVM; stop and isolate are refused.
func attachStrimziShaped(t *testing.T, ctx context.Context, kc string, a *api) {
	name := strimziName
	env := map[string]string{
		"KAFKA_NODE_ID": "0", "KAFKA_PROCESS_ROLES": "broker,controller", "CLUSTER_ID": "c3RyaW16aS1zaGFwZWQtMQ",
		"KAFKA_LISTENERS": "PLAINTEXT://:9092,CONTROLLER://:9093", "KAFKA_ADVERTISED_LISTENERS": "PLAINTEXT://localhost:9092",
		"KAFKA_CONTROLLER_LISTENER_NAMES": "CONTROLLER", "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
		"KAFKA_CONTROLLER_QUORUM_VOTERS": "0@localhost:9093", "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "1",
		"KAFKA_HEAP_OPTS": "-Xms64m -Xmx256m", "KAFKA_JVM_PERFORMANCE_OPTS": "-XX:+UseSerialGC -XX:TieredStopAtLevel=1",
	}
	var envs []corev1.EnvVar
	for k, v := range env {
		envs = append(envs, corev1.EnvVar{Name: k, Value: v})
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-broker-0", Labels: map[string]string{
			labelStrimziCluster: name, labelBrokerRole: "true", labelPool: "broker", "strimzi.io/controller-role": "true",
		}, Annotations: map[string]string{annStrimziVersion: kafkadist.Default}},
		Spec: corev1.PodSpec{
			Hostname: name + "-broker-0", Subdomain: name + "-kafka-brokers",
			Containers: []corev1.Container{{
				Name: containerKafka, Image: "kafkabook/kafka:" + kafkadist.Default, ImagePullPolicy: corev1.PullNever,
				// As under Strimzi's tini: the JVM is not the container's PID 1.
				Command: []string{"bash", "-c", "/etc/kafka/docker/run & wait"}, Env: envs,
			}},
		},
	}
	if _, err := a.cs.CoreV1().Pods(a.namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPodRunning(t, ctx, a, pod.Name)
	jvm := func() (pid, state string) {
		for range 100 {
			out, _ := a.run(ctx, pod.Name, containerKafka, "sh", "-c", `k=kafka; for d in /proc/[0-9]*; do grep -qa "$k\.Kafka" $d/cmdline 2>/dev/null && echo ${d#/proc/} $(cut -d' ' -f3 $d/stat); done`)
			if f := strings.Fields(out); len(f) == 2 {
				return f[0], f[1]
			}
			time.Sleep(300 * time.Millisecond)
		}
		t.Fatal("no JVM with kafka.Kafka in the Strimzi-shaped pod")
		return "", ""
	}
	pid, _ := jvm()
	at, err := Attach(name, AttachOptions{Kubeconfig: kc, Namespace: a.namespace, AllowFaults: name})
	if err != nil {
		t.Fatal(err)
	}
	st, err := at.Status(ctx)
	if err != nil || len(st.Nodes) != 1 || st.Nodes[0].Name != "k0" || st.Nodes[0].State != cluster.Running || st.Kafka != kafkadist.Default {
		t.Fatalf("status %+v, %v; want k0 running, Kafka %s", st, err, kafkadist.Default)
	}
	if err := at.Apply(ctx, cluster.Pause, []string{"k0"}, t.Logf); err != nil {
		t.Fatal(err)
	}
	if p, state := jvm(); p != pid || state != "T" {
		t.Errorf("after pause: JVM %s in state %s, want %s stopped (T)", p, state, pid)
	}
	if st, err := at.Status(ctx); err != nil || st.Nodes[0].State != cluster.Paused || fmt.Sprint(st.Nodes[0].PID) != pid {
		t.Errorf("status after pause: %+v, %v; want k0 paused, pid %s", st.Nodes, err, pid)
	}
	if err := at.Apply(ctx, cluster.Resume, []string{"k0"}, t.Logf); err != nil {
		t.Fatal(err)
	}
	if p, state := jvm(); p != pid || state == "T" {
		t.Errorf("after resume: JVM %s in state %s, want %s running", p, state, pid)
	}
	for _, op := range []cluster.Op{cluster.Stop, cluster.Isolate} {
		if err := at.Apply(ctx, op, []string{"k0"}, t.Logf); err == nil || !strings.Contains(err.Error(), "operator owns it") {
			t.Errorf("%s on a Strimzi-shaped pod: %v, want a refusal", op, err)
		}
	}
	if err := at.Partition(ctx, []string{"k0"}, []string{"k0"}, cluster.Cut{}); err == nil || !strings.Contains(err.Error(), "NET_ADMIN") {
		t.Errorf("partition on a Strimzi-shaped pod: %v, want a refusal", err)
	}
	if err := at.Apply(ctx, cluster.Kill, []string{"k0"}, t.Logf); err != nil {
		t.Fatal(err)
	}
	// The container's first process ends with its child, and the kubelet
	// starts the container again: the pod owns its restarts.
	for deadline := time.Now().Add(30 * time.Second); ; {
		p, err := a.cs.CoreV1().Pods(a.namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err == nil && restarts(p) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the killed broker's container did not restart")
		}
		time.Sleep(300 * time.Millisecond)
	}
}
