package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	dockerclient "github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The releases TestOperations upgrades between, and the metadata.version
// levels that tell them apart: 4.3's newest level is past every level
// 4.2.2 supports.
const (
	upgradeFrom     = "4.2.2"
	upgradeTo       = "4.3.1"
	metadata43Level = 30 // 4.3-IV0, metadata.version's level finalized by --metadata 4.3
)

// opsRunbook upgrades a three-node cluster with a dynamic quorum one node
// at a time under an idempotent acks=all producer, waiting for the ISR
// between nodes and changing a broker setting on the way, then finalizes
// 4.3's metadata.version and restarts the active controller; then a broker
// is added, given k1's replica (throttled) and the replica back, and
// removed; then, under a second producer, a fifth node joins the quorum and
// the active controller leaves it.
const opsRunbook = "---\n" + `title: a rolling upgrade, a broker replaced, the quorum changed
nodes: 3
quorum: dynamic
---
` + "```kafka" + `
topic create up --replicas 1:2:3 --config min.insync.replicas=2
topic create q --replicas 1:2:3 --config min.insync.replicas=2
produce up --acks all --idempotent --rate 200/s --for 15s --size 64 &
sleep 2s
roll --to ` + upgradeTo + ` --wait isr --set num.replica.fetchers=2
wait producers --timeout 60s
features upgrade --metadata 4.3
restart controller()
wait healthy --timeout 2m
broker add k4
reassign up --replicas 4:2:3 --throttle 1MB/s
wait reassigned up
isr up
reassign up --replicas 1:2:3
wait reassigned up
broker remove k4
produce q --acks all --idempotent --rate 200/s --for 20s --size 64 &
voter add k5
voter remove controller()
wait producers --timeout 60s
read up
read q
expect lost(up) == 0
expect duplicates(up) == 0
expect acked(up) == 3000
expect lost(q) == 0
expect duplicates(q) == 0
expect acked(q) == 4000
` + "```\n"

// TestOperations runs roll --to --set, features upgrade, restart
// controller(), broker add, reassign --throttle, wait reassigned, broker
// remove, voter add and voter remove on a cluster of its own, started on
// an older release with a dynamic quorum, and checks what the cluster says
// with readers of the test's own: every broker supports 4.3's
// metadata.version after the roll and none did before, every node's log
// says it started on the new release, the finalized level is 4.3's, every
// broker has the setting, the controller granted its own shutdown, k4 held
// a replica, no throttle is left, broker 4 is no longer registered, and
// Kafka's own kafka-metadata-quorum.sh lists k5 among the voters and not
// the controller removed, whose log says it resigned.
// The evidence holds each stop and start in order, each start with its
// release, and no acknowledged message lost or duplicated.
func TestOperations(t *testing.T) {
	backend, st := testcluster.StartWith(t, cluster.Config{Kafka: upgradeFrom, Nodes: 3, Quorum: cluster.QuorumDynamic})
	for _, n := range st.Nodes {
		if max := metadataMax(t, n.Address); max >= metadata43Level {
			t.Fatalf("before the roll %s supports metadata.version %d: not a %s broker", n.Name, max, upgradeFrom)
		}
	}
	res, _, out, err := runRunbook(t, backend, t.TempDir(), "ops.md", opsRunbook)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run := res.Runs[0]
	allHeld(t, run)

	// The cluster, asked by the test's own client.
	for _, n := range st.Nodes {
		if max := metadataMax(t, n.Address); max < metadata43Level {
			t.Errorf("after the roll %s supports metadata.version up to %d, want %d (4.3)", n.Name, max, metadata43Level)
		}
		testcluster.WaitLog(t, backend, n.Name, "Kafka version: "+upgradeTo, 10*time.Second)
	}
	if got := finalizedMetadata(t, st.Nodes[0].Address); got != metadata43Level {
		t.Errorf("finalized metadata.version is %d, want %d", got, metadata43Level)
	}
	now, err := backend.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range now.Nodes {
		if n.Kafka != upgradeTo || n.State != cluster.Running {
			t.Errorf("the backend says %s is %s on %q, want running on %s", n.Name, n.State, n.Kafka, upgradeTo)
		}
	}

	// Every broker runs with the setting the roll gave it, as it says.
	adm := kadm.NewClient(testClient(t, st.Bootstrap()))
	rolledSetting(t, adm, st)

	// The evidence: k1, k2, k3 in turn, each stop followed by its start;
	// then the active controller's.
	var seq []string
	for _, f := range run.Faults {
		seq = append(seq, f.Op+" "+strings.Join(f.Nodes, ",")+" "+f.Kafka)
	}
	want := []string{"stop k1 ", "start k1 " + upgradeTo, "stop k2 ", "start k2 " + upgradeTo, "stop k3 ", "start k3 " + upgradeTo}
	then := []string{"broker add k4 " + upgradeTo, "reassign up to 4:2:3 ", "reassigned up to 4:2:3 ", "reassign up to 1:2:3 ", "reassigned up to 1:2:3 ", "broker remove k4 ", "voter add k5 " + upgradeTo}
	if len(seq) != len(want)+2+len(then)+1 || !slices.Equal(seq[:len(want)], want) || !slices.Equal(seq[len(want)+2:len(seq)-1], then) || !strings.HasPrefix(seq[len(seq)-1], "voter remove k") {
		t.Fatalf("fault events %q, want %q, then the controller's stop and start, then %q, then a voter remove", seq, want, then)
	}
	if res.Provenance.Quorum != cluster.QuorumDynamic {
		t.Errorf("the provenance says the quorum was %q, want %q", res.Provenance.Quorum, cluster.QuorumDynamic)
	}
	// k4 held a replica of the topic, in its own words; the test's own
	// client then sees the broker gone for good.
	testcluster.WaitLog(t, backend, "k4", "Created log for partition "+run.Topics[0].Name+"-0", 5*time.Second)
	// wait reassigned took the throttle off the brokers and the topic.
	for _, n := range st.Nodes {
		rc, err := adm.DescribeBrokerConfigs(context.Background(), int32(n.ID))
		if err != nil {
			t.Fatal(err)
		}
		c, _ := rc.On(strconv.Itoa(n.ID), nil)
		for _, cfg := range c.Configs {
			if strings.HasSuffix(cfg.Key, ".replication.throttled.rate") && cfg.Source == kmsg.ConfigSourceDynamicBrokerConfig {
				t.Errorf("%s still has %s=%v after wait reassigned", n.Name, cfg.Key, cfg.MaybeValue())
			}
		}
	}
	tc, err := adm.DescribeTopicConfigs(context.Background(), run.Topics[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range tc[0].Configs {
		if strings.HasSuffix(cfg.Key, ".replication.throttled.replicas") && cfg.MaybeValue() != "" {
			t.Errorf("%s still has %s=%s after wait reassigned", run.Topics[0].Name, cfg.Key, cfg.MaybeValue())
		}
	}
	md, err := adm.BrokerMetadata(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(md.Brokers.NodeIDs(), 4) {
		t.Errorf("broker 4 is still registered after broker remove: %v", md.Brokers.NodeIDs())
	}
	if got := md.Brokers.NodeIDs(); !slices.Equal(got, []int32{1, 2, 3, 5}) {
		t.Errorf("the cluster lists brokers %v, want 1, 2, 3 and 5 (voter add k5 added a broker and controller)", got)
	}
	// controller() was the active controller: only the active controller
	// grants a controlled shutdown, and this one granted its own.
	ctl := run.Faults[len(want)].Nodes[0]
	id := strings.TrimPrefix(ctl, "k")
	testcluster.WaitLog(t, backend, ctl, "[QuorumController id="+id+"] Unfenced broker "+id+" has requested and been granted a controlled shutdown", 10*time.Second)
	// The quorum, as Kafka's own tool reads it on k1: k5 is a voter and
	// the controller removed is not; that one's log says it resigned.
	removed := run.Faults[len(run.Faults)-1].Nodes[0]
	desc, err := backend.Tool(context.Background(), "k1", "org.apache.kafka.tools.MetadataQuorumCommand", []string{"--bootstrap-server", cluster.ToolBootstrap, "describe", "--status"})
	if err != nil {
		t.Fatalf("kafka-metadata-quorum.sh describe: %v\n%s", err, desc)
	}
	wantVoters := []string{"1", "2", "3", "5"}
	wantVoters = slices.DeleteFunc(wantVoters, func(id string) bool { return "k"+id == removed })
	if got := quorumVoters(t, desc); !slices.Equal(got, wantVoters) {
		t.Errorf("kafka-metadata-quorum.sh lists voters %v, want %v (k5 added, %s removed)", got, wantVoters, removed)
	}
	testcluster.WaitLog(t, backend, removed, "is not in the committed voter set", 10*time.Second)
	testcluster.WaitLog(t, backend, "k5", "Kafka version: "+upgradeTo, 5*time.Second)
	for _, s := range []string{"k1 stopped in", "started on " + upgradeTo + " with num.replica.fetchers=2, every ISR full after", "metadata.version was upgraded to 30",
		"k5 is a voter after", removed + " is no longer a voter after", "it was the active controller"} {
		if !strings.Contains(out, s) {
			t.Errorf("the console lacks %q", s)
		}
	}
}

// rolledSetting checks that every broker says, asked by the test's own
// client, that it runs with num.replica.fetchers=2, as roll --set gave it.
func rolledSetting(t *testing.T, adm *kadm.Client, st cluster.Status) {
	t.Helper()
	for _, n := range st.Nodes {
		rc, err := adm.DescribeBrokerConfigs(context.Background(), int32(n.ID))
		if err != nil {
			t.Fatal(err)
		}
		c, err := rc.On(strconv.Itoa(n.ID), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, cfg := range c.Configs {
			if cfg.Key == "num.replica.fetchers" && cfg.Value != nil {
				got = *cfg.Value
			}
		}
		if got != "2" {
			t.Errorf("%s says num.replica.fetchers=%q, want 2 (roll --set)", n.Name, got)
		}
	}
}

// quorumVoters are the voters' ids on the CurrentVoters line of
// kafka-metadata-quorum.sh describe --status, sorted.
func quorumVoters(t *testing.T, desc string) []string {
	t.Helper()
	for _, l := range strings.Split(desc, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "CurrentVoters:"); ok {
			var voters []struct {
				ID int `json:"id"`
			}
			if err := json.Unmarshal([]byte(strings.TrimSpace(rest)), &voters); err != nil {
				t.Fatalf("CurrentVoters line %q: %v", l, err)
			}
			var ids []string
			for _, v := range voters {
				ids = append(ids, strconv.Itoa(v.ID))
			}
			slices.Sort(ids)
			return ids
		}
	}
	t.Fatalf("kafka-metadata-quorum.sh describe printed no CurrentVoters line:\n%s", desc)
	return nil
}

// metadataMax is the newest metadata.version the broker at addr supports,
// from its ApiVersions answer.
func metadataMax(t *testing.T, addr string, opts ...kgo.Opt) int16 {
	t.Helper()
	resp := apiVersions(t, addr, opts...)
	for _, f := range resp.SupportedFeatures {
		if f.Name == "metadata.version" {
			return f.MaxVersion
		}
	}
	t.Fatalf("%s names no metadata.version among its supported features", addr)
	return 0
}

// finalizedMetadata is the cluster's finalized metadata.version, as the
// broker at addr answers ApiVersions.
func finalizedMetadata(t *testing.T, addr string, opts ...kgo.Opt) int16 {
	t.Helper()
	for _, f := range apiVersions(t, addr, opts...).FinalizedFeatures {
		if f.Name == "metadata.version" {
			return f.MaxVersionLevel
		}
	}
	t.Fatalf("%s has no finalized metadata.version", addr)
	return 0
}

func apiVersions(t *testing.T, addr string, opts ...kgo.Opt) *kmsg.ApiVersionsResponse {
	t.Helper()
	resp, err := askAPIVersions(addr, opts...)
	if err != nil {
		t.Fatalf("ApiVersions of %s: %v", addr, err)
	}
	return resp
}

// askAPIVersions sends the broker at addr an ApiVersions request.
func askAPIVersions(addr string, opts ...kgo.Opt) (*kmsg.ApiVersionsResponse, error) {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr)}, opts...)...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kafkabook-test", "1"
	return req.RequestWith(ctx, cl)
}

// testClient is a franz-go client of the test's own on the cluster.
func testClient(t *testing.T, seeds []string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// rollRunbook upgrades a Docker or Kubernetes cluster under an idempotent
// acks=all producer, each node shut down cleanly and changing a setting on
// the way, and finalizes 4.3's metadata.version with Kafka's own tool run
// in a node's container.
const rollRunbook = "---\n" + `title: a rolling upgrade on a container backend
nodes: 3
---
` + "```kafka" + `
topic create up --replicas 1:2:3 --config min.insync.replicas=2
produce up --acks all --idempotent --rate 200/s --for 20s --size 64 &
sleep 2s
roll --to ` + upgradeTo + ` --clean --wait isr --set num.replica.fetchers=2
wait producers --timeout 60s
features upgrade --metadata 4.3
read up
expect lost(up) == 0
expect duplicates(up) == 0
expect acked(up) == 4000
` + "```\n"

// TestRollingUpgradeDocker runs roll --to --set and features upgrade on
// the docker backend, each node's container made again on the new
// release's image and the same volume, and checks with the test's own
// client and the Docker daemon: every broker supports 4.3's
// metadata.version after the roll and none did before, the finalized
// level is 4.3's, every broker has the setting, every container runs the
// new image, and the topic's data survived each container's replacement.
func TestRollingUpgradeDocker(t *testing.T) {
	testcluster.FullTier(t) // the fast tier rolls the local backend (TestOperations)
	testcluster.RequireDocker(t)
	testcluster.DockerImageOf(t, upgradeTo)
	backend, st := testcluster.StartDockerWith(t, cluster.Config{Kafka: upgradeFrom, Nodes: 3})
	for _, n := range st.Nodes {
		if max := metadataMax(t, n.Address); max >= metadata43Level {
			t.Fatalf("before the roll %s supports metadata.version %d: not a %s broker", n.Name, max, upgradeFrom)
		}
	}
	res, _ := runHeld(t, backend, "droll.md", rollRunbook)
	for _, n := range st.Nodes {
		if max := metadataMax(t, n.Address); max < metadata43Level {
			t.Errorf("after the roll %s supports metadata.version up to %d, want %d (4.3)", n.Name, max, metadata43Level)
		}
	}
	if got := finalizedMetadata(t, st.Nodes[0].Address); got != metadata43Level {
		t.Errorf("finalized metadata.version is %d, want %d", got, metadata43Level)
	}
	rolledSetting(t, kadm.NewClient(testClient(t, st.Bootstrap())), st)
	loggedAcrossMove(t, res.Runs[0], st.Nodes, upgradeTo)
	// The Docker daemon's own word on each container's image.
	cli := dockerClient(t)
	cs, err := cli.ContainerList(context.Background(), container.ListOptions{All: true, Filters: ofCluster(st.Name)})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 {
		t.Fatalf("the daemon lists %d containers of the cluster, want 3", len(cs))
	}
	for _, c := range cs {
		if !strings.HasSuffix(c.Image, ":"+upgradeTo) || c.State != container.StateRunning {
			t.Errorf("container %v runs %s (%s), want the %s image, running", c.Names, c.Image, c.State, upgradeTo)
		}
	}
}

// TestRollingUpgradeKubernetes runs the same roll on the kubernetes
// backend, where each node's pod is made again by the StatefulSet on the
// new release's image, and checks with the test's own clients: the
// Kubernetes API says each node's pod is a new one (another uid) that
// runs the new image on the same volume claim as before (the claim's uid
// unchanged), and the brokers, reached from the cluster's client pod,
// support 4.3's metadata.version, have it finalized and report the
// setting; nothing acknowledged was lost through the roll.
func TestRollingUpgradeKubernetes(t *testing.T) {
	testcluster.FullTier(t) // the fast tier rolls the local backend (TestOperations)
	ctx := context.Background()
	backend, st := testcluster.StartKubernetesWith(t, cluster.Config{Kafka: upgradeFrom, Nodes: 3})
	cs := testcluster.KubernetesClient(t, testcluster.Kubeconfig(t))
	ns := backend.Namespace(ctx)
	access, err := backend.Access(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dial := kgo.Dialer(access.Dial)
	pods := func() map[string]corev1.Pod {
		t.Helper()
		l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "strimzi.io/cluster=" + st.Name})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]corev1.Pod{}
		for _, p := range l.Items {
			out[p.Name] = p
		}
		return out
	}
	claims := func() map[string]types.UID {
		t.Helper()
		l, err := cs.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]types.UID{}
		for _, c := range l.Items {
			out[c.Name] = c.UID
		}
		return out
	}
	podsBefore, claimsBefore := pods(), claims()
	if len(podsBefore) != 3 || len(claimsBefore) != 3 {
		t.Fatalf("before the roll: %d pods and %d claims, want 3 of each", len(podsBefore), len(claimsBefore))
	}
	for _, n := range st.Nodes {
		if max := metadataMax(t, n.Address, dial); max >= metadata43Level {
			t.Fatalf("before the roll %s supports metadata.version %d: not a %s broker", n.Name, max, upgradeFrom)
		}
	}
	res, _ := runHeld(t, backend, "kroll.md", rollRunbook)
	podsAfter := pods()
	for name, p := range podsAfter {
		if p.UID == podsBefore[name].UID {
			t.Errorf("pod %s is the one from before the roll (uid %s): not made again", name, p.UID)
		}
		var image string
		for _, c := range p.Status.ContainerStatuses {
			if c.Name == "kafka" && c.State.Running != nil {
				image = c.Image
			}
		}
		if !strings.HasSuffix(image, "kafkabook/kafka:"+upgradeTo) {
			t.Errorf("pod %s: its kafka container runs %q, want kafkabook/kafka:%s", name, image, upgradeTo)
		}
	}
	if got := claims(); !maps.Equal(got, claimsBefore) {
		t.Errorf("volume claims %v after the roll, want those from before %v (each node on its own data)", got, claimsBefore)
	}
	for _, n := range st.Nodes {
		if max := metadataMax(t, n.Address, dial); max < metadata43Level {
			t.Errorf("after the roll %s supports metadata.version up to %d, want %d (4.3)", n.Name, max, metadata43Level)
		}
	}
	if got := finalizedMetadata(t, st.Nodes[0].Address, dial); got != metadata43Level {
		t.Errorf("finalized metadata.version is %d, want %d", got, metadata43Level)
	}
	rolledSetting(t, kadm.NewClient(testClient(t, st.Bootstrap(), dial)), st)
	loggedAcrossMove(t, res.Runs[0], st.Nodes, upgradeTo)
	now, err := backend.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range now.Nodes {
		if n.Kafka != upgradeTo || n.Broker["num.replica.fetchers"] != "2" || n.State != cluster.Running {
			t.Errorf("the backend says %s is %s on %q with %v, want running on %s with num.replica.fetchers=2", n.Name, n.State, n.Kafka, n.Broker, upgradeTo)
		}
	}

	// A reset, as between the runs of a runbook that upgrades: every
	// node's pod made again on the cluster's release, on new claims.
	if err := backend.Reset(ctx, t.Logf); err != nil {
		t.Fatalf("reset: %v", err)
	}
	claimsReset := claims()
	if len(claimsReset) != 3 {
		t.Errorf("after the reset: claims %v, want 3", claimsReset)
	}
	for name, uid := range claimsReset {
		if claimsBefore[name] == uid {
			t.Errorf("claim %s is the one from before the reset: the data was not made new", name)
		}
	}
	for name, p := range pods() {
		if c := p.Spec.Containers[0]; c.Name != "kafka" || !strings.HasSuffix(c.Image, ":"+upgradeFrom) {
			t.Errorf("after the reset pod %s runs %s %s, want the cluster's release %s", name, c.Name, c.Image, upgradeFrom)
		}
	}
	err = poll.Until(ctx, time.Second, 2*time.Minute, nil, func(ctx context.Context) (bool, string, error) {
		resp, err := askAPIVersions(st.Nodes[0].Address, dial)
		if err != nil {
			return false, err.Error(), nil
		}
		for _, f := range resp.SupportedFeatures {
			if f.Name == "metadata.version" {
				return f.MaxVersion < metadata43Level, fmt.Sprintf("k1 supports metadata.version %d", f.MaxVersion), nil
			}
		}
		return false, "k1 names no metadata.version", nil
	})
	if err != nil {
		t.Errorf("after the reset k1 is not back on %s: %v", upgradeFrom, err)
	}
}

// membersRunbook grows a Docker or Kubernetes cluster by a broker under
// an idempotent acks=all producer, moves the topic's first replica to it
// (throttled) and back, and takes it out again.
const membersRunbook = "---\n" + `title: a broker added and removed
nodes: 3
---
` + "```kafka" + `
topic create up --replicas 1:2:3 --config min.insync.replicas=2
produce up --acks all --idempotent --rate 200/s --for 20s --size 64 &
sleep 2s
broker add k4
reassign up --replicas 4:2:3 --throttle 1MB/s
wait reassigned up
reassign up --replicas 1:2:3
wait reassigned up
broker remove k4
wait producers --timeout 60s
read up
expect lost(up) == 0
expect duplicates(up) == 0
expect acked(up) == 4000
` + "```\n"

// TestBrokerAddDocker runs broker add, reassign and broker remove on the
// docker backend and checks with the test's own client and the Docker
// daemon: broker 4 was registered while the run held it (the reassignment
// to it completed), and afterwards the cluster lists brokers 1 to 3 only,
// the daemon holds neither k4's container nor its volume, and nothing
// acknowledged was lost.
func TestBrokerAddDocker(t *testing.T) {
	testcluster.FullTier(t) // the fast tier adds and removes brokers on the local backend (TestOperations)
	testcluster.RequireDocker(t)
	backend, st := testcluster.StartDockerWith(t, cluster.Config{Kafka: testcluster.Version(), Nodes: 3})
	res, out := runHeld(t, backend, "dmembers.md", membersRunbook)
	brokerCameAndWent(t, res.Runs[0], out)
	adm := kadm.NewClient(testClient(t, st.Bootstrap()))
	brokers, err := adm.ListBrokers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ids := brokers.NodeIDs(); !slices.Equal(ids, []int32{1, 2, 3}) {
		t.Errorf("after broker remove the cluster lists brokers %v, want [1 2 3]", ids)
	}
	cli := dockerClient(t)
	cs, err := cli.ContainerList(context.Background(), container.ListOptions{All: true, Filters: ofCluster(st.Name)})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 {
		t.Errorf("the daemon lists %d containers of the cluster after broker remove, want 3", len(cs))
	}
	vols, err := cli.VolumeList(context.Background(), volume.ListOptions{Filters: ofCluster(st.Name)})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vols.Volumes {
		if strings.Contains(v.Name, "k4") {
			t.Errorf("volume %s of k4 remains after broker remove", v.Name)
		}
	}
}

// dockerClient is a client of the test's own on the Docker daemon.
func dockerClient(t *testing.T) *dockerclient.Client {
	t.Helper()
	cli, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// ofCluster selects what the docker backend made for cluster name.
func ofCluster(name string) filters.Args {
	return filters.NewArgs(filters.Arg("label", "kafkabook.cluster="+name))
}

// loggedAcrossMove checks that the run's evidence holds, for every node
// moved to release to, the broker's log lines from before the move (its
// controlled shutdown, logged by the container or pod that was then
// replaced) and after it (its start on the new release).
func loggedAcrossMove(t *testing.T, run results.Run, nodes []cluster.Node, to string) {
	t.Helper()
	for _, n := range nodes {
		var before, after bool
		for _, l := range run.Logs {
			if l.Node != n.Name {
				continue
			}
			before = before || strings.Contains(strings.ToLower(l.Text), "controlled shutdown")
			after = after || strings.Contains(l.Text, "Kafka version: "+to)
		}
		if !before || !after {
			t.Errorf("%s: the run's log lines show its controlled shutdown before the move: %v, its start on %s after it: %v", n.Name, before, to, after)
		}
	}
}

// quorumRunbook changes a Docker or Kubernetes cluster's dynamic quorum under an
// idempotent acks=all producer: a fourth node joins it, then the active
// controller leaves it.
const quorumRunbook = "---\n" + `title: the quorum changed
nodes: 3
quorum: dynamic
---
` + "```kafka" + `
topic create q --replicas 1:2:3 --config min.insync.replicas=2
produce q --acks all --idempotent --rate 200/s --for 20s --size 64 &
voter add k4
voter remove controller()
wait producers --timeout 60s
read q
expect lost(q) == 0
expect duplicates(q) == 0
expect acked(q) == 4000
` + "```\n"

// TestQuorumDocker runs voter add and voter remove on a Docker cluster
// formatted with a dynamic quorum, and checks with Kafka's own
// kafka-metadata-quorum.sh, run in k4's container: k4 is a voter and the
// controller removed is not, whose log says it resigned; nothing
// acknowledged was lost.
func TestQuorumDocker(t *testing.T) {
	testcluster.FullTier(t) // the fast tier changes the quorum on the local backend (TestOperations)
	testcluster.RequireDocker(t)
	backend, st := testcluster.StartDockerWith(t, cluster.Config{Kafka: testcluster.Version(), Nodes: 3, Quorum: cluster.QuorumDynamic})
	if st.Quorum != cluster.QuorumDynamic {
		t.Fatalf("status says quorum %q, want dynamic", st.Quorum)
	}
	res, _ := runHeld(t, backend, "dquorum.md", quorumRunbook)
	quorumChanged(t, backend, res.Runs[0])
}

// runHeld runs src on backend and fails the test unless the run
// completed with every expectation held; it returns the results and the
// console.
func runHeld(t *testing.T, backend cluster.Backend, name, src string) (*results.Results, string) {
	t.Helper()
	res, _, out, err := runRunbook(t, backend, t.TempDir(), name, src)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	allHeld(t, res.Runs[0])
	return res, out
}

// TestBrokerAddKubernetes runs broker add, reassign and broker remove on
// the kubernetes backend and checks with the test's own clients: broker 4
// was in sync while the run held it, and afterwards the cluster lists
// brokers 1 to 3 only and the Kubernetes API holds neither k4's pod nor
// its volume claim; nothing acknowledged was lost.
func TestBrokerAddKubernetes(t *testing.T) {
	testcluster.FullTier(t) // the fast tier adds and removes brokers on the local backend (TestOperations)
	ctx := context.Background()
	backend, st := testcluster.StartKubernetes(t, nil)
	res, out := runHeld(t, backend, "kmembers.md", membersRunbook)
	brokerCameAndWent(t, res.Runs[0], out)
	access, err := backend.Access(ctx)
	if err != nil {
		t.Fatal(err)
	}
	brokers, err := kadm.NewClient(testClient(t, st.Bootstrap(), kgo.Dialer(access.Dial))).ListBrokers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ids := brokers.NodeIDs(); !slices.Equal(ids, []int32{1, 2, 3}) {
		t.Errorf("after broker remove the cluster lists brokers %v, want [1 2 3]", ids)
	}
	cs := testcluster.KubernetesClient(t, testcluster.Kubeconfig(t))
	ns := backend.Namespace(ctx)
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "strimzi.io/cluster=" + st.Name})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 3 {
		t.Errorf("after broker remove %d broker pods remain, want 3", len(pods.Items))
	}
	err = poll.Until(ctx, 250*time.Millisecond, time.Minute, nil, func(ctx context.Context) (bool, string, error) {
		claims, err := cs.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		return len(claims.Items) == 3, fmt.Sprintf("%d claims", len(claims.Items)), nil
	})
	if err != nil {
		t.Errorf("k4's volume claim remains after broker remove: %v", err)
	}
}

// TestQuorumKubernetes runs voter add and voter remove on a Kubernetes
// cluster formatted with a dynamic quorum, and checks with Kafka's own
// kafka-metadata-quorum.sh, run in k4's pod: k4 is a voter and the
// controller removed is not, whose log says it resigned; nothing
// acknowledged was lost.
func TestQuorumKubernetes(t *testing.T) {
	testcluster.FullTier(t) // the fast tier changes the quorum on the local backend (TestOperations)
	backend, st := testcluster.StartKubernetesWith(t, cluster.Config{Kafka: testcluster.Version(), Nodes: 3, Quorum: cluster.QuorumDynamic})
	if st.Quorum != cluster.QuorumDynamic {
		t.Fatalf("status says quorum %q, want dynamic", st.Quorum)
	}
	res, _ := runHeld(t, backend, "kquorum.md", quorumRunbook)
	quorumChanged(t, backend, res.Runs[0])
}

// quorumChanged checks, with Kafka's own kafka-metadata-quorum.sh run on
// k4, that quorumRunbook's run left k4 a voter and the controller it
// removed not one, and that this one's log says it resigned.
func quorumChanged(t *testing.T, backend interface {
	cluster.Backend
	cluster.Tools
}, run results.Run) {
	t.Helper()
	removed := run.Faults[len(run.Faults)-1].Nodes[0]
	desc, err := backend.Tool(context.Background(), "k4", "org.apache.kafka.tools.MetadataQuorumCommand", []string{"--bootstrap-server", cluster.ToolBootstrap, "describe", "--status"})
	if err != nil {
		t.Fatalf("kafka-metadata-quorum.sh describe: %v\n%s", err, desc)
	}
	want := slices.DeleteFunc([]string{"1", "2", "3", "4"}, func(id string) bool { return "k"+id == removed })
	if got := quorumVoters(t, desc); !slices.Equal(got, want) {
		t.Errorf("kafka-metadata-quorum.sh lists voters %v, want %v (k4 added, %s removed)", got, want, removed)
	}
	testcluster.WaitLog(t, backend, removed, "is not in the committed voter set", 10*time.Second)
}

// brokerCameAndWent checks membersRunbook's run: k4 registered, held a
// replica of up in sync, and was shut down and unregistered.
func brokerCameAndWent(t *testing.T, run results.Run, out string) {
	t.Helper()
	for _, s := range []string{"k4 registered as broker 4", "k4 shut down and unregistered"} {
		if !strings.Contains(out, s) {
			t.Errorf("the console lacks %q", s)
		}
	}
	var held bool
	for _, smp := range run.ISR {
		held = held || (smp.Topic == "up" && slices.Contains(smp.ISR, 4))
	}
	if !held {
		t.Error("no ISR sample of up has broker 4 in sync: the reassignment never moved a replica to k4")
	}
}
