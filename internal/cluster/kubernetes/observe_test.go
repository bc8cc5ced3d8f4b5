package kubernetes

import (
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// TestProcsScript runs the script Observe runs in a pod's faults
// container, here, and finds in its lines this machine's processes, the
// script's own shell among them with its state.
func TestProcsScript(t *testing.T) {
	out, err := exec.Command("bash", "-c", procsScript+"; echo self $$").Output()
	if err != nil {
		t.Skipf("no bash here: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	self, _ := strconv.Atoi(strings.TrimPrefix(lines[len(lines)-1], "self "))
	ps := parseProcs(string(out))
	if len(ps) < 2 {
		t.Fatalf("%d processes read from %d lines", len(ps), len(lines))
	}
	found := false
	for _, p := range ps {
		if p.pid == self {
			found = p.comm == "bash" && !p.st.Dead() && !p.st.Stopped() && strings.HasPrefix(p.cmdline, "bash -c ")
		}
	}
	if !found {
		t.Errorf("the script's shell (pid %d) is not among %d processes as a running bash", self, len(ps))
	}
}

// TestJVMShows: what a pod's processes show of each op. The JVM's stat
// line is a real one (a broker on Linux 6); the storage tool's JVM, which
// the image's script runs first, is not the broker.
func TestJVMShows(t *testing.T) {
	const jvm = "1055 (java) S 972 1055 1055 0 -1 4194304 38861 0 2 0 361 59 0 0 20 0 78 0 2400612 2879569920 42846 18446744073709551615 0 0 0 0 0 0 0 0 16800975 0 0 0 17 0 0 0 0 0 0\tjava -Xmx1G -Xms1G -server -cp /opt/kafka/libs/* kafka.Kafka /opt/kafka/config/server.properties "
	const format = "1040 (java) R 972 1040 1040 0 -1 4194304 100 0 0 0 10 1 0 0 20 0 20 0 2400100 2879569920 4000 18446744073709551615 0 0 0 0 0 0 0 0 16800975 0 0 0 17 0 0 0 0 0 0\tjava -Xmx1G -Xms1G -cp /opt/kafka/libs/* kafka.tools.StorageTool format --ignore-formatted -t abc -c /opt/kafka/config/server.properties "
	const supervisor = "7 (bash) S 0 7 7 0 -1 4194560 900 0 0 0 1 1 0 0 20 0 1 0 2300000 4194304 800 18446744073709551615 0 0 0 0 0 0 65536 4 65538 0 0 0 17 1 0 0 0 0 0\t/bin/bash /kafkabook/bin/supervise "
	running := parseProcs(supervisor + "\n" + jvm + "\n")
	paused := parseProcs(supervisor + "\n" + strings.Replace(jvm, "(java) S", "(java) T", 1))
	zombie := parseProcs(supervisor + "\n" + strings.Replace(jvm, "(java) S", "(java) Z", 1))
	formatting := parseProcs(supervisor + "\n" + format)
	gone := parseProcs(supervisor)
	for _, c := range []struct {
		op     cluster.Op
		ps     []proc
		landed bool
		said   string
	}{
		{cluster.Kill, gone, true, "the broker JVM (kafka.Kafka; none among the pod's 1 processes) is gone"},
		{cluster.Kill, zombie, true, "the broker JVM (kafka.Kafka; none among the pod's 2 processes) is gone"},
		{cluster.Stop, running, false, "pid 1055 (java) is still there (state S)"},
		{cluster.Pause, paused, true, "pid 1055 (java) is stopped (state T)"},
		{cluster.Pause, running, false, "pid 1055 (java) is not stopped (state S)"},
		{cluster.Resume, running, true, "pid 1055 (java) runs (state S)"},
		{cluster.Resume, paused, false, "pid 1055 (java) runs (state T)"},
		{cluster.Start, gone, false, "the broker JVM (kafka.Kafka; none among the pod's 1 processes) is gone"},
		{cluster.Start, formatting, false, "the broker JVM (kafka.Kafka; none among the pod's 2 processes) is gone"},
	} {
		said, landed := jvmShows(c.op, c.ps)
		if said != c.said || landed != c.landed {
			t.Errorf("%s: %q, %v; want %q, %v", c.op, said, landed, c.said, c.landed)
		}
	}
	if len(running) != 2 || running[1].pid != 1055 || running[0].cmdline != "/bin/bash /kafkabook/bin/supervise " {
		t.Errorf("parseProcs: %+v", running)
	}
}

// TestReadProbe reads probeScript's real output, captured with bash 5.2
// and coreutils' timeout between two network namespaces: a connection
// that opened, one the peer's kernel refused, and one whose SYN a DROP
// rule swallowed (the peer's, or the prober's own OUTPUT rule alike).
func TestReadProbe(t *testing.T) {
	for _, c := range []struct {
		out  string
		want probeResult
		said string
	}{
		{"exit 0\n", opened, "a TCP handshake from the pod with k2's broker port was answered"},
		{"10.250.77.2: connect: Connection refused\n10.250.77.2: line 1: /dev/tcp/10.250.77.2/9092: Connection refused\nexit 1\n", refused,
			"a TCP connection from the pod to k2's broker port was refused: Connection refused"},
		{"exit 124\n", unanswered, "a TCP handshake from the pod with k2's broker port got no answer within 250ms"},
		{"", unanswered, `a handshake from the pod with k2's broker port was not made: ""`},
	} {
		got, said := readProbe(c.out, "k2", 250*time.Millisecond)
		if got != c.want || said != c.said {
			t.Errorf("readProbe(%q) = %v, %q; want %v, %q", c.out, got, said, c.want, c.said)
		}
	}
}

// TestProbeScript runs the probe Observe runs in a pod, here, against a
// port that listens and the same port once closed.
func TestProbeScript(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	probe := func() probeResult {
		out, err := exec.Command("bash", "-c", probeScript, "probe", host, port, "2").Output()
		if err != nil {
			t.Skipf("no bash here: %v", err)
		}
		r, said := readProbe(string(out), "k2", 2*time.Second)
		t.Logf("%s", said)
		return r
	}
	if r := probe(); r != opened {
		t.Errorf("a listening port: %v, want opened", r)
	}
	ln.Close()
	if r := probe(); r != refused {
		t.Errorf("a closed port: %v, want refused", r)
	}
}
