package local_test

import (
	"context"
	"net"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/vishvananda/netns"
)

// testNetFaults: a partition blocks node-to-node traffic in the named
// direction while the host still reaches every node; one that keeps the
// quorum blocks only the broker port, not the controller port; heal undoes
// it; loss 100% cuts a node off like isolation, 0% restores it; link
// limits what a node sends, as a receiver measures it.
func testNetFaults(t *testing.T, b *local.Backend, st cluster.Status) {
	ctx := context.Background()
	ns := func(node string) string { return "kb-" + st.Name + "-" + node }
	ip := func(node string) string {
		n, _ := st.Node(node)
		host, _, _ := net.SplitHostPort(n.Address)
		return host
	}
	addr := func(node string) string { n, _ := st.Node(node); return n.Address }
	fromHost := func(node string) bool { return dial("", addr(node)) }
	between := func(from, to string) bool { return dial(ns(from), addr(to)) }
	// controllers reports whether from opens a connection to to's
	// controller listener (the broker's port plus one).
	controllers := func(from, to string) bool {
		host, port, _ := net.SplitHostPort(addr(to))
		p, _ := strconv.Atoi(port)
		return dial(ns(from), net.JoinHostPort(host, strconv.Itoa(p+1)))
	}
	// datagram sends one UDP datagram from one node to another and says
	// whether it arrived: it shows a direction that TCP, needing both,
	// cannot.
	datagram := func(from, to string) bool {
		return udp(t, ns(from), ns(to), ip(to))
	}
	t.Cleanup(func() {
		if err := b.HealNetwork(ctx); err != nil {
			t.Errorf("heal: %v", err)
		}
	})

	// The fault table leaves k2 stopped.
	if err := b.Apply(ctx, cluster.Start, []string{"k2"}, t.Logf); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); !fromHost("k2"); time.Sleep(200 * time.Millisecond) {
		if time.Since(start) > 60*time.Second {
			t.Fatal("k2 does not listen a minute after start")
		}
	}
	if !between("k2", "k1") || !datagram("k1", "k2") {
		t.Fatal("k2 cannot reach k1 before any fault")
	}
	if err := b.Partition(ctx, []string{"k1"}, []string{"k2", "k3"}, cluster.Cut{}); err != nil {
		t.Fatal(err)
	}
	if between("k2", "k1") || between("k1", "k3") || datagram("k1", "k2") || datagram("k2", "k1") {
		t.Error("k1 | k2 k3: traffic between the sides still flows")
	}
	if !between("k2", "k3") {
		t.Error("k1 | k2 k3: k2 cannot reach k3 on its own side")
	}
	for _, n := range []string{"k1", "k2", "k3"} {
		if !fromHost(n) {
			t.Errorf("k1 | k2 k3: the host cannot reach %s", n)
		}
	}
	faults, err := b.NetworkFaults(ctx)
	if err != nil || len(faults["k1"]) == 0 {
		t.Errorf("NetworkFaults = %v, %v; want k1's rules", faults, err)
	}

	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if !between("k2", "k1") || !datagram("k1", "k2") {
		t.Error("after heal, k1 and k2 do not reach each other")
	}
	if faults, _ := b.NetworkFaults(ctx); len(faults) != 0 {
		t.Errorf("after heal, rules remain: %v", faults)
	}

	// A partition that keeps the quorum: broker ports cut both ways, the
	// controller listeners still reachable across it.
	if err := b.Partition(ctx, []string{"k1"}, []string{"k2", "k3"}, cluster.Cut{KeepQuorum: true}); err != nil {
		t.Fatal(err)
	}
	if between("k1", "k2") || between("k2", "k1") || between("k3", "k1") {
		t.Error("k1 | k2 k3 keeping the quorum: a broker port is reachable across the cut")
	}
	if !controllers("k1", "k2") || !controllers("k2", "k1") || !controllers("k3", "k1") {
		t.Error("k1 | k2 k3 keeping the quorum: a controller port is unreachable across the cut")
	}
	if !between("k2", "k3") || !fromHost("k1") {
		t.Error("k1 | k2 k3 keeping the quorum: a broker port on the same side or from the host is cut")
	}
	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if !between("k2", "k1") {
		t.Error("after heal, k2 does not reach k1's broker port")
	}

	if err := b.Partition(ctx, []string{"k1"}, []string{"k2"}, cluster.Cut{OneWay: true}); err != nil {
		t.Fatal(err)
	}
	if datagram("k1", "k2") {
		t.Error("k1 | k2 one way: a datagram from k1 reached k2")
	}
	if !datagram("k2", "k1") {
		t.Error("k1 | k2 one way: a datagram from k2 did not reach k1")
	}
	if !between("k3", "k1") || !between("k3", "k2") {
		t.Error("k1 | k2 one way: k3 is cut off")
	}
	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}

	if err := b.Loss(ctx, "k1", 100); err != nil {
		t.Fatal(err)
	}
	if fromHost("k1") || between("k2", "k1") {
		t.Error("loss k1 100%: k1 still reachable")
	}
	if !fromHost("k2") {
		t.Error("loss k1 100%: k2 unreachable")
	}
	// The kernel's counts say the loss dropped what the probes sent and
	// got no answer to (the SYNs and their retries), and nothing on k2.
	if ss, err := b.NetStates(ctx, []string{"k1", "k2"}); err != nil || len(ss) != 2 {
		t.Errorf("NetStates k1 k2: %+v, %v", ss, err)
	} else {
		k1, k2 := ss[0].Loss, ss[1].Loss
		said, landed := k1.Landed()
		t.Logf("loss k1 100%%: %s", said)
		if k1.Probability != 1 || k1.Dropped < 2 || k1.Dropped > k1.Packets || !landed {
			t.Errorf("loss k1 100%%: the kernel counted %+v; want every packet dropped, at least the two probes'", k1)
		}
		if k2.InForce() || ss[0].Rate.InForce() {
			t.Errorf("loss k1 100%%: k2's loss %+v, k1's rate %+v: want neither in force", k2, ss[0].Rate)
		}
	}
	if err := b.Loss(ctx, "k1", 0); err != nil {
		t.Fatal(err)
	}
	if !fromHost("k1") || !between("k2", "k1") {
		t.Error("loss k1 0%: k1 still unreachable")
	}
	if ss, err := b.NetStates(ctx, []string{"k1"}); err != nil || ss[0].Loss.InForce() {
		t.Errorf("loss k1 0%%: NetStates %+v, %v; want no loss in force", ss, err)
	}

	// link: what k1 sends is limited to the rate, measured by a receiver
	// in k2 (not read back from tc); what k1 receives is not; heal ends it.
	const rate = 8_000_000 // bits per second: 1 MB/s
	if err := b.Rate(ctx, "k1", rate); err != nil {
		t.Fatal(err)
	}
	if rules, err := b.NetworkFaults(ctx); err != nil || !strings.Contains(strings.Join(rules["k1"], " "), "tbf") {
		t.Errorf("link k1: the rules in place do not show its token bucket: %v %v", rules, err)
	}
	if got := throughput(t, ns("k1"), ns("k2"), ip("k2"), 2<<20); got < rate/2 || got > rate*13/10 {
		t.Errorf("link k1 --rate 8mbit/s: k1 sent at %.1f Mbit/s", got/1e6)
	} else {
		t.Logf("link k1 --rate 8mbit/s: k1 sent at %.2f Mbit/s", got/1e6)
	}
	if got := throughput(t, ns("k2"), ns("k1"), ip("k1"), 2<<20); got < rate*3 {
		t.Errorf("link k1: what k1 receives is limited too: %.1f Mbit/s", got/1e6)
	}
	// The kernel's bucket shows its rate and what the receiver counted
	// through it: the 2 MiB at least, held back for want of tokens.
	if ss, err := b.NetStates(ctx, []string{"k1"}); err != nil {
		t.Errorf("NetStates k1: %v", err)
	} else {
		r := ss[0].Rate
		said, _ := r.Landed()
		t.Logf("link k1 --rate 8mbit/s: %s", said)
		if r.Rate != "8Mbit" || r.Bytes < 2<<20 || r.Overlimits == 0 {
			t.Errorf("link k1 --rate 8mbit/s: the kernel's bucket %+v; want 8Mbit, at least 2 MiB sent, held back", r)
		}
	}
	// A new rate is a new bucket, counting from nothing.
	if err := b.Rate(ctx, "k1", rate*2); err != nil {
		t.Fatal(err)
	}
	if ss, err := b.NetStates(ctx, []string{"k1"}); err != nil || ss[0].Rate.Rate != "16Mbit" || ss[0].Rate.Bytes >= 2<<20 {
		t.Errorf("link k1 --rate 16mbit/s: NetStates %+v, %v; want a new bucket at 16Mbit", ss, err)
	}
	if err := b.HealNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if got := throughput(t, ns("k1"), ns("k2"), ip("k2"), 2<<20); got < rate*3 {
		t.Errorf("after heal, k1 still sends at %.1f Mbit/s", got/1e6)
	}
	if ss, err := b.NetStates(ctx, nil); err != nil || len(ss) != 3 {
		t.Errorf("after heal: NetStates %+v, %v; want the three nodes", ss, err)
	} else {
		for _, s := range ss {
			if s.Loss.InForce() || s.Rate.InForce() {
				t.Errorf("after heal: %+v still in force", s)
			}
		}
	}

	// A killed broker's sockets die with it: none is left retransmitting
	// what the broker had written (the kernel would deliver it on rejoin).
	if err := b.Apply(ctx, cluster.Kill, []string{"k3"}, t.Logf); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ip", "netns", "exec", ns("k3"), "ss", "-Htn", "state", "all").Output()
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("TCP sockets left in k3's namespace after kill:\n%s", s)
	}
}

// dial reports whether a TCP connection to addr opens within a second,
// from inside the named network namespace ("" for the host).
func dial(ns, addr string) bool {
	ok := false
	inNS(ns, func() {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			ok = true
		}
	})
	return ok
}

// udp sends a datagram from namespace from to ip in namespace to, and
// reports whether it arrived within 500 ms.
func udp(t *testing.T, from, to, ip string) bool {
	t.Helper()
	var conn net.PacketConn
	inNS(to, func() {
		var err error
		conn, err = net.ListenPacket("udp", net.JoinHostPort(ip, "0"))
		if err != nil {
			t.Fatalf("listen in %s: %v", to, err)
		}
	})
	defer conn.Close()
	inNS(from, func() {
		c, err := net.Dial("udp", conn.LocalAddr().String())
		if err != nil {
			t.Fatalf("dial from %s: %v", from, err)
		}
		defer c.Close()
		c.Write([]byte("kafkabook"))
	})
	conn.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	buf := make([]byte, 16)
	n, _, err := conn.ReadFrom(buf)
	return err == nil && strings.HasPrefix(string(buf[:n]), "kafkabook")
}

// throughput sends n bytes over TCP from namespace from to a listener at
// ip in namespace to, and returns the bits per second the receiver
// counted between the first byte and the last.
func throughput(t *testing.T, from, to, ip string, n int) float64 {
	t.Helper()
	var ln net.Listener
	inNS(to, func() {
		var err error
		if ln, err = net.Listen("tcp", net.JoinHostPort(ip, "0")); err != nil {
			t.Fatalf("listen in %s: %v", to, err)
		}
	})
	defer ln.Close()
	var conn net.Conn
	inNS(from, func() {
		var err error
		if conn, err = net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second); err != nil {
			t.Fatalf("dial from %s: %v", from, err)
		}
	})
	go func() {
		defer conn.Close()
		conn.Write(make([]byte, n))
	}()
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(30 * time.Second))
	c, err := ln.Accept()
	if err != nil {
		t.Fatalf("accept in %s: %v", to, err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(60 * time.Second))
	buf := make([]byte, 64<<10)
	var got, before int // before: the bytes of the first read, which start the clock
	var first time.Time
	for got < n {
		k, err := c.Read(buf)
		if k > 0 && first.IsZero() {
			first, before = time.Now(), k
		}
		got += k
		if err != nil {
			break
		}
	}
	if got < n {
		t.Fatalf("%s to %s: %d of %d bytes arrived", from, to, got, n)
	}
	return float64(got-before) * 8 / time.Since(first).Seconds()
}

// inNS runs f on a thread inside the named network namespace ("" for the
// current one); sockets opened there stay in it. The thread goes back to
// its own namespace afterwards: it may be the main thread, which Go never
// ends, and /proc/PID/ns/net of the process is the main thread's.
func inNS(name string, f func()) {
	if name == "" {
		f()
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			return // stays locked: the thread ends with the goroutine
		}
		defer orig.Close()
		h, err := netns.GetFromName(name)
		if err != nil {
			runtime.UnlockOSThread()
			return
		}
		defer h.Close()
		if netns.Set(h) != nil {
			return
		}
		f()
		if netns.Set(orig) == nil {
			runtime.UnlockOSThread()
		}
	}()
	<-done
}
