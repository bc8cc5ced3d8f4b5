package netfault

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// The testdata files are real output of iptables v1.8.9 (nf_tables; one
// of iptables-legacy 1.8.9) and tc (iproute2 6.1.0), captured in a namespace of a veth pair with the
// rules and buckets Loss and Rate make, after traffic through them.

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseLoss(t *testing.T) {
	for _, c := range []struct {
		file string
		want cluster.LossState
		// landed: the loss dropped a packet
		inForce, landed bool
		percent         string
	}{
		{"iptables-loss-30.txt", cluster.LossState{Probability: 0.3, Packets: 48, Dropped: 14}, true, true, "30%"},
		{"iptables-loss-100.txt", cluster.LossState{Probability: 1, Packets: 26, Dropped: 24}, true, true, "100%"},
		{"iptables-legacy-loss-20.txt", cluster.LossState{Probability: 0.2, Packets: 15, Dropped: 4}, true, true, "20%"},
		{"iptables-loss-idle.txt", cluster.LossState{Probability: 0.3}, true, false, "30%"},
		{"iptables-loss-none.txt", cluster.LossState{}, false, false, "0%"},
	} {
		got, err := parseLoss(read(t, c.file))
		if err != nil || got != c.want {
			t.Errorf("%s: parseLoss = %+v, %v; want %+v", c.file, got, err, c.want)
		}
		if got.InForce() != c.inForce || got.Percent() != c.percent {
			t.Errorf("%s: InForce %v, Percent %s; want %v, %s", c.file, got.InForce(), got.Percent(), c.inForce, c.percent)
		}
		got.Node = "k2"
		if !c.inForce {
			continue
		}
		said, landed := got.Landed()
		if landed != c.landed {
			t.Errorf("%s: Landed = %q, %v; want landed %v", c.file, said, landed, c.landed)
		}
		t.Logf("%s: %s", c.file, said)
	}
}

func TestParseRate(t *testing.T) {
	for _, c := range []struct {
		file   string
		want   cluster.RateState
		handle string
	}{
		{"tc-rate-held.txt", cluster.RateState{Dev: "kbobsva", Rate: "10Mbit", Bytes: 2443250, Packets: 1623, Dropped: 129, Overlimits: 2406}, "802b:"},
		{"tc-rate-idle.txt", cluster.RateState{Dev: "kbobsva", Rate: "1Mbit"}, "2:"},
		{"tc-none.txt", cluster.RateState{}, ""},
	} {
		got, handle := parseRate(read(t, c.file))
		if got != c.want || handle != c.handle {
			t.Errorf("%s: parseRate = %+v, %q; want %+v, %q", c.file, got, handle, c.want, c.handle)
		}
		got.Node = "k1"
		if got.InForce() {
			said, _ := got.Landed()
			t.Logf("%s: %s", c.file, said)
		}
	}
	// tc qdisc show dev IF leaves the device out of its lines.
	got, handle := parseRate("qdisc tbf 1: root refcnt 3 rate 10Mbit burst 15000b lat 100ms \n Sent 136400 bytes 92 pkt (dropped 12, overlimits 141 requeues 0) \n backlog 139160b 38p requeues 0\n")
	if want := (cluster.RateState{Rate: "10Mbit", Bytes: 136400, Packets: 92, Dropped: 12, Overlimits: 141}); got != want || handle != "1:" {
		t.Errorf("without dev: %+v, %q; want %+v, 1:", got, handle, want)
	}
}
