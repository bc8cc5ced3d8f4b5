package testcluster

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/poll"
)

// Bringing up a cluster costs a few seconds (2–8 s measured on two cores,
// more under load), and most tests need nothing of a cluster but its
// brokers: they isolate themselves by their own topics, groups and
// transactional ids (the engine suffixes every name with its run). So a
// package's tests share one cluster per configuration: the first test
// that asks starts it, every later one gets it back healed (every node
// running and connected, every ISR full), and Main takes it down when the
// package's tests end, pass or fail, and checks that nothing of it
// remains. A test that must own its cluster (power loss, the reaper, a
// backend's own bring-up) calls Start instead, and says why.

// Only one shared cluster runs at a time: a test that asks for another
// configuration first takes the running one down. Idle brokers still take
// CPU, and timing-sensitive tests (latency expectations) must not run
// beside another cluster on two cores; packages keep their
// configurations few, so this costs a bring-up or two.

// shared holds the test binary's shared cluster.
var shared struct {
	mu       sync.Mutex
	main     bool           // Main runs this binary's tests
	root     string         // the state root of shared clusters, removed by Main
	current  *sharedCluster // the one running, if any
	problems []string       // what taking one down left behind: fails Main
}

type sharedCluster struct {
	key  string // its configuration
	name string
	b    *local.Backend
	st   cluster.Status
	err  error // why it could not start: every later test of it fails with it
}

// Main runs a package's tests (m.Run) and then takes down the cluster
// they shared, checking that nothing of any shared cluster remains; it
// returns the exit code for os.Exit. A package whose tests call Shared has
// a TestMain that calls it.
func Main(m *testing.M) int {
	shared.mu.Lock()
	shared.main = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	downCurrent()
	if shared.root != "" {
		if err := os.RemoveAll(shared.root); err != nil {
			shared.problems = append(shared.problems, err.Error())
		}
		shared.root = ""
	}
	for _, p := range shared.problems {
		fmt.Fprintf(os.Stderr, "testcluster: %s\n", p)
	}
	if len(shared.problems) > 0 && code == 0 {
		code = 1
	}
	return code
}

// downCurrent takes the running shared cluster down and checks that
// nothing of it remains; what does is kept in shared.problems.
func downCurrent() {
	c := shared.current
	shared.current = nil
	if c == nil || c.b == nil {
		return
	}
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "testcluster: "+c.name+": "+format+"\n", args...)
	}
	start := time.Now()
	if err := c.b.Down(context.Background(), logf); err != nil {
		shared.problems = append(shared.problems, fmt.Sprintf("shared cluster %s: down: %v", c.name, err))
	}
	for _, l := range c.b.Leftovers() {
		shared.problems = append(shared.problems, fmt.Sprintf("after down, %s of shared cluster %s remains", l, c.name))
	}
	fmt.Fprintf(os.Stderr, "testcluster: shared cluster %s (%s) down in %.1fs\n", c.name, c.key, time.Since(start).Seconds())
}

// Shared returns this package's cluster of n nodes with the given broker
// overrides, healed; a call for a configuration that is not running
// starts it (taking down the one that is). The package's TestMain must
// call Main, which takes it down at the end.
func Shared(t testing.TB, n int, broker map[string]string) (*local.Backend, cluster.Status) {
	t.Helper()
	Require(t)
	key := configKey(n, broker)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.main {
		t.Fatal("testcluster.Shared: the package's TestMain must call testcluster.Main, which takes shared clusters down")
	}
	c := shared.current
	if c == nil || c.key != key {
		downCurrent()
		c = startShared(t, n, broker, key)
		shared.current = c
	} else if c.err == nil {
		if err := healShared(t, c); err != nil {
			t.Fatalf("healing the shared cluster %s before this test: %v", c.name, err)
		}
	}
	if c.err != nil {
		t.Fatalf("the shared cluster %s (%s) did not start: %v", c.name, key, c.err)
	}
	t.Logf("on shared cluster %s (%s)", c.name, key)
	return c.b, c.st
}

// configKey names a configuration: the node count and the sorted
// overrides.
func configKey(n int, broker map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(broker)) {
		kv = append(kv, k+"="+broker[k])
	}
	return fmt.Sprintf("%d nodes %s", n, strings.Join(kv, " "))
}

// startShared starts the cluster of key under the binary's shared state
// root. A cluster that fails to start stays current with its error, so
// the tests after it that ask for it fail at once instead of each trying
// again; whatever of it was made is taken down with it.
func startShared(t testing.TB, n int, broker map[string]string, key string) *sharedCluster {
	t.Helper()
	c := &sharedCluster{key: key, name: Name()}
	if shared.root == "" {
		root, err := os.MkdirTemp("", "kafkabook-shared-")
		if err != nil {
			c.err = err
			return c
		}
		shared.root = root
	}
	b, err := local.NewAt(shared.root, c.name)
	if err != nil {
		c.err = err
		return c
	}
	c.b = b
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	logf := func(format string, args ...any) { t.Logf(c.name+": "+format, args...) }
	c.st, c.err = b.Up(ctx, cluster.Config{Name: c.name, Kafka: Version(), Nodes: n, Broker: broker, Ready: Ready}, logf)
	if c.err == nil {
		t.Logf("started the shared cluster %s (%s) in %.1fs", c.name, key, time.Since(start).Seconds())
	}
	return c
}

// healShared undoes what the tests before left: every node back and
// connected, every broker registered and every partition's ISR full, as
// the engine heals between runs; and, beyond that, every partition led by
// its preferred replica again, as on a fresh cluster. Without the last,
// the leaders that the earlier tests' faults moved (of __consumer_offsets
// and __transaction_state too, hence the coordinators) move back during a
// later test, whenever Kafka's automatic leader rebalance runs: a
// coordinator test once saw its group's coordinator change between two
// steps so.
func healShared(t testing.TB, c *sharedCluster) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	logf := func(format string, args ...any) { t.Logf(c.name+": "+format, args...) }
	say := func(op cluster.Op, node string, was cluster.State) { logf("heal: %s %s (was %s)", op, node, was) }
	if err := cluster.BringBack(ctx, c.b, logf, say); err != nil {
		return err
	}
	admin, err := kafka.Dial(kafka.Plain(c.st.Bootstrap()...))
	if err != nil {
		return err
	}
	defer admin.Close()
	want := len(c.st.Nodes)
	var elected time.Time
	return poll.Until(ctx, 100*time.Millisecond, 3*time.Minute, poll.Progress(logf), func(ctx context.Context) (bool, string, error) {
		ids, err := admin.Brokers(ctx)
		if err != nil || len(ids) < want {
			return false, fmt.Sprintf("brokers registered: %v of %d (%v)", ids, want, err), nil
		}
		parts, err := admin.Partitions(ctx)
		if err != nil {
			return false, "metadata: " + err.Error(), nil
		}
		for _, p := range parts {
			if len(p.ISR) < len(p.Replicas) || p.Leader < 0 {
				return false, fmt.Sprintf("%s-%d isr=%v of %v", p.Topic, p.ID, p.ISR, p.Replicas), nil
			}
		}
		for _, p := range parts {
			if len(p.Replicas) > 0 && p.Leader != p.Replicas[0] {
				// Asked again every 2 s: an election the controller could
				// not make yet (a replica still catching up) is not retried.
				if time.Since(elected) > 2*time.Second {
					elected = time.Now()
					logf("electing preferred leaders: %s-%d is led by %d, not %d", p.Topic, p.ID, p.Leader, p.Replicas[0])
					if err := admin.ElectPreferredLeaders(ctx); err != nil {
						return false, "electing preferred leaders: " + err.Error(), nil
					}
				}
				return false, fmt.Sprintf("%s-%d led by %d, preferred %d", p.Topic, p.ID, p.Leader, p.Replicas[0]), nil
			}
		}
		return true, "", nil
	})
}
