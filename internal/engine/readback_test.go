package engine

import (
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// TestReadBack: a step's readings agree with what it asked only when the
// kernel holds that: a rate as tc prints it, within tc's rounding; a
// loss's share; none after 0.
func TestReadBack(t *testing.T) {
	for r, want := range map[string]float64{"10Mbit": 10e6, "1500Kbit": 1.5e6, "8bit": 8, "2Gbit": 2e9} {
		if got, ok := tcRate(r); !ok || got != want {
			t.Errorf("tcRate(%q) = %v, %v; want %v", r, got, ok, want)
		}
	}
	if _, ok := tcRate("10Mbps"); ok {
		t.Error("tcRate read 10Mbps")
	}
	bucket := cluster.NetState{Node: "k1", Rate: cluster.RateState{Node: "k1", Dev: "eth0", Rate: "10Mbit"}}
	none := cluster.NetState{Node: "k1"}
	for _, c := range []struct {
		s    cluster.NetState
		bps  int64
		want bool
	}{{bucket, 10_000_000, true}, {bucket, 8_000_000, false}, {bucket, 0, false}, {none, 0, true}, {none, 10_000_000, false}} {
		if said, ok := rateNow(c.bps)(c.s); ok != c.want {
			t.Errorf("rateNow(%d) on %+v: %q, %v; want %v", c.bps, c.s.Rate, said, ok, c.want)
		}
	}
	lossy := cluster.NetState{Node: "k2", Loss: cluster.LossState{Node: "k2", Probability: 0.3}}
	for _, c := range []struct {
		s    cluster.NetState
		pct  int
		want bool
	}{{lossy, 30, true}, {lossy, 20, false}, {lossy, 0, false}, {none, 0, true}, {none, 30, false}} {
		if said, ok := lossNow(c.pct)(c.s); ok != c.want {
			t.Errorf("lossNow(%d) on %+v: %q, %v; want %v", c.pct, c.s.Loss, said, ok, c.want)
		}
	}
	// ended: only faults in force speak; one that did nothing is unproven.
	said, unproven := ended([]cluster.LossState{{Node: "k1"}, {Node: "k2", Probability: 0.3, Packets: 40}})
	if len(said) != 1 || !unproven {
		t.Errorf("ended: %q, unproven %v; want k2's loss alone, unproven", said, unproven)
	}
	said, unproven = ended([]cluster.DiskState{{Node: "k3", Fault: cluster.DiskFault{Full: true}, Refused: 3}})
	if len(said) != 1 || unproven {
		t.Errorf("ended: %q, unproven %v; want k3's disk, proven", said, unproven)
	}
}
