package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// Status describes the cluster from its pods and, for each running pod,
// what the fault script says of its broker.
func (b *Backend) Status(ctx context.Context) (cluster.Status, error) {
	a, err := b.client(ctx)
	if err != nil {
		return cluster.Status{}, err
	}
	ns, err := b.nodes(ctx, a)
	if err != nil {
		return cluster.Status{}, err
	}
	if len(ns) == 0 {
		return cluster.Status{}, fmt.Errorf("%w: no Kubernetes cluster %q is up in namespace %s (start one with `kafkabook cluster up --backend kubernetes`)", cluster.ErrNotFound, b.name, a.namespace)
	}
	st := cluster.Status{Name: b.name, Backend: Name, Kafka: ns[0].Pod.Annotations[annKafka], Quorum: ns[0].Pod.Annotations[annQuorum]}
	if raw, ok := ns[0].Pod.Annotations[annBroker]; ok {
		if err := json.Unmarshal([]byte(raw), &st.Broker); err != nil {
			return cluster.Status{}, fmt.Errorf("pod %s: annotation %s=%q is not a JSON object of settings (%v): take the cluster down and start it again", ns[0].Pod.Name, annBroker, raw, err)
		}
	}
	st.Nodes = make([]cluster.Node, len(ns))
	var wg sync.WaitGroup
	for i, n := range ns {
		st.Nodes[i] = cluster.Node{Name: n.Name, ID: n.ID, Address: b.address(n.Pod), State: cluster.Exited, Added: n.Pod.Labels[labelPool] != Pool}
		if v := n.Pod.Annotations[annNodeKafka]; v != st.Kafka {
			st.Nodes[i].Kafka = v
		}
		if raw := n.Pod.Annotations[annNodeBroker]; raw != "" {
			if err := json.Unmarshal([]byte(raw), &st.Nodes[i].Broker); err != nil {
				return cluster.Status{}, fmt.Errorf("pod %s: annotation %s=%q is not a JSON object of settings (%v)", n.Pod.Name, annNodeBroker, raw, err)
			}
		}
		if !running(n.Pod, containerKafka) || !running(n.Pod, containerFaults) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.Nodes[i].State, st.Nodes[i].PID = b.brokerState(ctx, a, n)
		}()
	}
	wg.Wait()
	return st, nil
}

// stateTTL is how long a pod's answer to `fault state` is taken as
// current. The engine asks for the status several times a second (its ISR
// sampler leaves out nodes that are down); every answer costs an exec in
// the pod, and the container runtime keeps files open per exec. Faults
// applied through this backend forget the answers at once, so only a
// broker that dies unasked is seen up to stateTTL late.
const stateTTL = 3 * time.Second

// stateCache holds the pods' last answers, by pod UID.
type stateCache struct {
	mu      sync.Mutex
	answers map[string]stateAnswer
	asking  map[string]*sync.Mutex // one question at a time per pod
	gen     int                    // forgets so far: an answer asked before one is not kept
}

// lock keeps other callers from asking the pod while one does; they take
// its answer.
func (c *stateCache) lock(key string) func() {
	c.mu.Lock()
	if c.asking == nil {
		c.asking = map[string]*sync.Mutex{}
	}
	m := c.asking[key]
	if m == nil {
		m = &sync.Mutex{}
		c.asking[key] = m
	}
	c.mu.Unlock()
	m.Lock()
	return m.Unlock
}

type stateAnswer struct {
	at    time.Time
	state cluster.State
	pid   int
}

// forget drops every answer: a fault changed what a pod would say.
func (c *stateCache) forget() {
	c.mu.Lock()
	c.answers = nil
	c.gen++
	c.mu.Unlock()
}

// brokerState asks a running pod's fault script what its broker does:
// `fault state` prints "killed|stopped|exited N|starting|running|paused
// pid=P [isolated]". A pod that cannot answer within 10 s counts as
// exited.
func (b *Backend) brokerState(ctx context.Context, a *api, n node) (cluster.State, int) {
	key := string(n.Pod.UID)
	defer b.states.lock(key)()
	b.states.mu.Lock()
	if ans, ok := b.states.answers[key]; ok && time.Since(ans.at) < stateTTL {
		b.states.mu.Unlock()
		return ans.state, ans.pid
	}
	gen := b.states.gen
	b.states.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := a.run(ctx, n.Pod.Name, containerFaults, faultScript, "state")
	if err != nil {
		return cluster.Exited, 0
	}
	st, pid := parseState(out)
	b.states.mu.Lock()
	if b.states.gen == gen {
		if b.states.answers == nil {
			b.states.answers = map[string]stateAnswer{}
		}
		b.states.answers[key] = stateAnswer{at: time.Now(), state: st, pid: pid}
	}
	b.states.mu.Unlock()
	return st, pid
}

// parseState reads `fault state`'s line.
func parseState(line string) (cluster.State, int) {
	f := strings.Fields(line)
	pid := 0
	isolated := false
	for _, w := range f {
		if p, ok := strings.CutPrefix(w, "pid="); ok {
			pid, _ = strconv.Atoi(p)
		}
		isolated = isolated || w == "isolated"
	}
	if len(f) == 0 {
		return cluster.Exited, 0
	}
	switch f[0] {
	case "killed":
		return cluster.Killed, 0
	case "stopped":
		return cluster.Stopped, 0
	case "paused":
		return cluster.Paused, pid
	case "running", "starting":
		if isolated {
			return cluster.Isolated, pid
		}
		return cluster.Running, pid
	}
	return cluster.Exited, 0
}

// faultScript is where the ConfigMap's fault script is in the faults
// container.
const faultScript = "/kafkabook/bin/fault"
