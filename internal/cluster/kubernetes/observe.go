package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/procstat"
)

var _ cluster.Observer = (*Backend)(nil)

// Observe reads what op left each node from its pod, through the faults
// container, which shares the pod's process and network namespaces: the
// processes /proc lists there (the broker's JVM gone, stopped or
// running) and, for isolate and rejoin, a TCP handshake from the pod's
// network with another node's broker port. Never the fault script's
// markers (its down and isolated files), which say what kafkabook did.
func (b *Backend) Observe(ctx context.Context, op cluster.Op, names []string) (string, bool, error) {
	a, all, err := b.clusterNodes(ctx)
	if err != nil {
		return "", false, err
	}
	ns, err := b.byName(all, names)
	if err != nil {
		return "", false, err
	}
	var said []string
	landed := true
	for _, n := range ns {
		s, ok, err := b.observe(ctx, a, op, n, all)
		if err != nil {
			return "", false, fmt.Errorf("%s: %w", n.Name, err)
		}
		if s != "" {
			said = append(said, n.Name+": "+s)
			landed = landed && ok
		}
	}
	return strings.Join(said, "; "), landed, nil
}

// startWait is how long Observe waits for a started broker's JVM: the
// supervisor runs the image's script first, and a pod made again on
// another release must be scheduled.
const startWait = time.Minute

func (b *Backend) observe(ctx context.Context, a *api, op cluster.Op, n node, all []node) (string, bool, error) {
	switch op {
	case cluster.Kill, cluster.Stop, cluster.Pause, cluster.Resume, cluster.Start:
		var said string
		var landed bool
		for deadline := time.Now().Add(startWait); ; {
			out, err := a.run(ctx, podOf(all, n), containerFaults, "bash", "-c", procsScript)
			if err == nil {
				said, landed = jvmShows(op, parseProcs(out))
			}
			switch {
			case landed || op != cluster.Start || time.Now().After(deadline):
				return said, landed, err
			case ctx.Err() != nil:
				return said, landed, ctx.Err()
			}
			time.Sleep(250 * time.Millisecond)
			if fresh, err := b.nodes(ctx, a); err == nil {
				all = fresh // a pod made again has a new name's uid, the same name
			}
		}
	case cluster.Isolate, cluster.Rejoin:
		i := slices.IndexFunc(all, func(p node) bool {
			return p.Name != n.Name && p.Pod.Status.PodIP != "" && running(p.Pod, containerFaults)
		})
		if i < 0 {
			return "", true, nil // no other node to shake hands with: nothing to say
		}
		wait := cluster.CutProbe
		if op == cluster.Rejoin {
			wait = cluster.AnswerProbe
		}
		peer := all[i]
		out, err := a.run(ctx, n.Pod.Name, containerFaults, "bash", "-c", probeScript, "probe",
			peer.Pod.Status.PodIP, strconv.Itoa(brokerPort), strconv.FormatFloat(wait.Seconds(), 'f', -1, 64))
		if err != nil {
			return "", false, err
		}
		r, said := readProbe(out, peer.Name, wait)
		if op == cluster.Isolate {
			// A refusal may be the pod's own reset rule (a killed
			// node's), so only silence proves the cut.
			return said, r == unanswered, nil
		}
		return said, r != unanswered, nil
	}
	return "", true, nil
}

// podOf is n's pod's name among all, as listed last.
func podOf(all []node, n node) string {
	if i := slices.IndexFunc(all, func(p node) bool { return p.Name == n.Name }); i >= 0 {
		return all[i].Pod.Name
	}
	return n.Pod.Name
}

// procsScript prints /proc/PID/stat of every process in the pod, one a
// line, with a tab and its command line after it, arguments separated by
// spaces (a process that ends meanwhile is left out).
const procsScript = `for d in /proc/[0-9]*; do read -r l <"$d/stat" 2>/dev/null || continue; c=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null); echo "$l	$c"; done; true`

// probeScript opens a TCP connection from the pod's network to $1:$2,
// waiting at most $3 seconds, and prints bash's error, if any, then its
// exit status: 0 answered, 124 no answer in time.
const probeScript = `timeout "$3" bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>&1; echo "exit $?"`

// proc is one process of a pod, from its stat line and command line.
type proc struct {
	pid     int
	comm    string
	st      procstat.Stat
	cmdline string
}

// parseProcs reads procsScript's lines, leaving out those it cannot read.
func parseProcs(out string) []proc {
	var ps []proc
	for _, line := range strings.Split(out, "\n") {
		stat, cmdline, _ := strings.Cut(line, "\t")
		pid, comm, st, err := procstat.Parse(stat)
		if err == nil {
			ps = append(ps, proc{pid, comm, st, cmdline})
		}
	}
	return ps
}

// jvmShows says what a pod's processes show of op: the broker's JVM (a
// java process running kafka.Kafka, not ended; not the storage tool the
// image's script runs before it) gone after kill and stop, stopped after
// pause, running after start and resume.
func jvmShows(op cluster.Op, ps []proc) (string, bool) {
	var jvms []proc
	for _, p := range ps {
		if p.comm == "java" && strings.Contains(p.cmdline, " kafka.Kafka ") && !p.st.Dead() {
			jvms = append(jvms, p)
		}
	}
	if len(jvms) == 0 {
		return cluster.ProcessShows(op, fmt.Sprintf("the broker JVM (kafka.Kafka; none among the pod's %d processes)", len(ps)), true, false, "")
	}
	j := jvms[0]
	return cluster.ProcessShows(op, fmt.Sprintf("pid %d (java)", j.pid), false, j.st.Stopped(), string(j.st.State))
}

// A probe's outcome: the connection opened, was refused (by a kernel on
// the way: the peer's, or the pod's own rules), or got no answer.
type probeResult int

const (
	opened probeResult = iota
	refused
	unanswered
)

// readProbe reads probeScript's output.
func readProbe(out, peer string, wait time.Duration) (probeResult, string) {
	out = strings.TrimSpace(out)
	i := strings.LastIndex(out, "exit ")
	if i < 0 {
		return unanswered, fmt.Sprintf("a handshake from the pod with %s's broker port was not made: %q", peer, out)
	}
	code, msg := strings.TrimSpace(out[i+len("exit "):]), strings.TrimSpace(out[:i])
	if j := strings.LastIndex(msg, ": "); j >= 0 {
		msg = msg[j+2:] // bash's "bash: line 1: /dev/tcp/10.1.2.3/9092: Connection refused"
	}
	switch {
	case code == "0":
		return opened, fmt.Sprintf("a TCP handshake from the pod with %s's broker port was answered", peer)
	case code == "124":
		return unanswered, fmt.Sprintf("a TCP handshake from the pod with %s's broker port got no answer within %v", peer, wait)
	case strings.Contains(msg, "refused"):
		return refused, fmt.Sprintf("a TCP connection from the pod to %s's broker port was refused: %s", peer, msg)
	}
	return unanswered, fmt.Sprintf("a TCP handshake from the pod with %s's broker port failed: %s", peer, msg)
}
