package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/netdelay"
)

// A delayed link (link --delay) in a pod is the local backend's: the
// NFQUEUE rule in the pod's network namespace (package netfault, iptables
// in the faults container) and kafkabook's delayer (package netdelay),
// this kafkabook binary copied into the faults container (root,
// NET_ADMIN, the pod's network) and started there in the background. Its
// pid, its ready line and its log are files in the pod's control
// directory. The pod outlives a kill and a start of the broker, and so
// does the delay, as on the local backend; down removes it with the pod.
// Handshakes are timed by python3 (in kafkabook's image) in the clients'
// pod, where the clients run, or in a node's faults container.

var _ cluster.Delayer = (*Backend)(nil)

// The delayer's files in the pod's control directory (kubernetes.yaml).
const (
	delayerPID   = "/kafkabook/control/netdelay.pid"
	delayerReady = "/kafkabook/control/netdelay.ready"
	delayerLog   = "/kafkabook/control/netdelay.log"
)

// Delay puts d in force on what node sends, replacing the delay it had.
func (b *Backend) Delay(ctx context.Context, node string, d cluster.LinkDelay) error {
	if err := d.Check(node); err != nil {
		return err
	}
	a, n, err := b.node(ctx, node)
	if err != nil {
		return err
	}
	if !running(n.Pod, containerFaults) {
		return fmt.Errorf("link %s --delay: pod %s is not running", node, n.Pod.Name)
	}
	if err := b.Unqueue(ctx, node); err != nil {
		return err
	}
	if err := stopDelayer(ctx, a, n); err != nil {
		return err
	}
	if d.Delay == 0 {
		return nil
	}
	if err := startDelayer(ctx, a, n, d); err != nil {
		return err
	}
	return b.QueueDelay(ctx, node, d.To)
}

// HealNetwork removes every partition, loss, rate limit and delay of every
// running node: the rules first, then the delayers, which send on what
// they hold.
func (b *Backend) HealNetwork(ctx context.Context) error {
	if err := b.Faults.HealNetwork(ctx); err != nil {
		return err
	}
	a, all, err := b.clusterNodes(ctx)
	if err != nil {
		return err
	}
	for _, n := range all {
		if running(n.Pod, containerFaults) {
			if err := stopDelayer(ctx, a, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// startDelayer copies this binary into node n's faults container, starts
// the delayer there and returns once it has bound its queue.
func startDelayer(ctx context.Context, a *api, n node, d cluster.LinkDelay) error {
	exe, err := copyExe(ctx, a, n)
	if err != nil {
		return err
	}
	// $1 the binary, $2.. its arguments: given to the shell as arguments,
	// never as code. fd 3 is the ready line (readyline's protocol).
	script := `rm -f ` + delayerReady + `; exe=$1; shift
env ` + netdelay.ServeEnv + ` setsid "$exe" "$@" >>` + delayerLog + ` 2>&1 3>` + delayerReady + ` </dev/null &
echo $! >` + delayerPID
	argv := append([]string{"sh", "-c", script, "sh", exe}, netdelay.Args(netdelay.Queue, d.Delay, d.Jitter)...)
	if _, err := a.run(ctx, n.Pod.Name, containerFaults, argv...); err != nil {
		return fmt.Errorf("%s: starting its link delayer: %w", n.Name, err)
	}
	// The ready line, then "gone" once the delayer's process has ended.
	probe := `cat ` + delayerReady + ` 2>/dev/null; pid=$(cat ` + delayerPID + `); grep -q '^State:[[:space:]]*[^Z]' /proc/$pid/status 2>/dev/null || echo gone`
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		out, err := a.run(ctx, n.Pod.Name, containerFaults, "sh", "-c", probe)
		if err != nil {
			return fmt.Errorf("%s: reading its link delayer's ready line: %w", n.Name, err)
		}
		line, gone := strings.CutSuffix(strings.TrimSpace(out), "gone")
		switch line = strings.TrimSpace(line); {
		case line == "ok":
			return nil
		case line != "":
			return fmt.Errorf("%s: the link delayer did not bind its queue: %s (log: %s in pod %s)", n.Name, line, delayerLog, n.Pod.Name)
		case gone:
			return fmt.Errorf("%s: the link delayer exited before it bound its queue (log: %s in pod %s)", n.Name, delayerLog, n.Pod.Name)
		}
	}
	stopDelayer(ctx, a, n)
	return fmt.Errorf("%s: the link delayer did not bind its queue within 10s (log: %s in pod %s)", n.Name, delayerLog, n.Pod.Name)
}

// stopDelayer stops node n's delayer, if one runs: SIGTERM, so that it
// sends on what it holds, then SIGKILL if it has not gone within 5 s.
func stopDelayer(ctx context.Context, a *api, n node) error {
	// The delayer's parent is the pod's first process once the exec that
	// started it ends, which may not reap it: a zombie has ended.
	script := `pid=$(cat ` + delayerPID + ` 2>/dev/null) || exit 0
rm -f ` + delayerPID + ` ` + delayerReady + `
alive() { [ -n "$pid" ] && [ -e /proc/$pid ] && ! grep -q '^State:[[:space:]]*Z' /proc/$pid/status 2>/dev/null; }
alive || exit 0
kill -TERM "$pid"
for i in $(seq 100); do alive || exit 0; sleep 0.05; done
kill -KILL "$pid"
for i in $(seq 100); do alive || exit 0; sleep 0.05; done
echo "the link delayer (pid $pid) is still there 5s after SIGKILL" >&2; exit 1`
	if _, err := a.run(ctx, n.Pod.Name, containerFaults, "sh", "-c", script); err != nil {
		return fmt.Errorf("%s: stopping its link delayer: %w", n.Name, err)
	}
	return nil
}

// handshakeTimer times argv[3] TCP handshakes with argv[1]:argv[2] and
// prints each in nanoseconds: python3, which kafkabook's image holds.
const handshakeTimer = `import socket, sys, time
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for _ in range(n):
    s = socket.socket()
    s.settimeout(10)
    t = time.perf_counter_ns()
    s.connect((host, port))
    print(time.perf_counter_ns() - t)
    s.close()
`

// Handshakes times n TCP handshakes with node's broker listener, from the
// clients' pod (from "") or from node from's pod, sorted.
func (b *Backend) Handshakes(ctx context.Context, from, node string, n int) ([]time.Duration, error) {
	a, target, err := b.node(ctx, node)
	if err != nil {
		return nil, err
	}
	if target.Pod.Status.PodIP == "" {
		return nil, fmt.Errorf("%s: pod %s has no address", node, target.Pod.Name)
	}
	pod, ctr, where := b.clientPod(), containerClients, "the clients' pod"
	if from != "" {
		_, f, err := b.node(ctx, from)
		if err != nil {
			return nil, err
		}
		pod, ctr, where = f.Pod.Name, containerFaults, from
	}
	out, err := a.run(ctx, pod, ctr, "python3", "-c", handshakeTimer, target.Pod.Status.PodIP, strconv.Itoa(brokerPort), strconv.Itoa(n))
	if err != nil {
		return nil, fmt.Errorf("time a handshake with %s's broker listener from %s: %w", node, where, err)
	}
	var took []time.Duration
	for _, f := range strings.Fields(out) {
		ns, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("time a handshake with %s's broker listener from %s: %q", node, where, out)
		}
		took = append(took, time.Duration(ns))
	}
	slices.Sort(took)
	return took, nil
}
