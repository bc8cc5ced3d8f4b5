package engine_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/netdelay"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

const delayRunbook = "# A slow link\n\n```kafka\n" +
	"topic create t --replicas 1:2:3\n" +
	"link k2 --delay 50ms\n" +
	"produce t --count 200 --acks all\n" +
	"heal\n" +
	"expect lost(t) == 0\n" +
	"```\n"

// TestLinkDelay runs link k2 --delay 50ms and heal on a real cluster:
// the delay fault event carries the node and the delay as written, and
// its Observed the handshakes measured over the link, at least 50 ms
// and not much more; heal ends the slow link's window.
func TestLinkDelay(t *testing.T) {
	testcluster.FullTier(t) // the fast tier runs link --delay in TestEveryDirectiveOnCluster, its measured handshakes in its observed
	if m := netdelay.Missing(); m != "" {
		testcluster.Lacks(t, "link --delay needs "+m)
	}
	b, _ := sharedThree(t)
	res, _ := runHeld(t, b, "delay.md", delayRunbook)
	run := res.Runs[0]
	var delay *results.Fault
	healed := false
	for i, f := range run.Faults {
		switch f.Op {
		case "delay":
			delay = &run.Faults[i]
		case "heal":
			healed = delay != nil
		}
	}
	if delay == nil || strings.Join(delay.Nodes, " ") != "k2 50ms" || !healed {
		t.Fatalf("faults %+v: want a delay of k2 50ms, then heal", run.Faults)
	}
	t.Logf("observed: %s", delay.Observed)
	m := regexp.MustCompile(`min ([0-9.]+) ms, median ([0-9.]+) ms`).FindStringSubmatch(delay.Observed)
	if m == nil {
		t.Fatalf("observed %q: no measured handshakes", delay.Observed)
	}
	lo, _ := strconv.ParseFloat(m[1], 64)
	median, _ := strconv.ParseFloat(m[2], 64)
	if lo < 50 || median > 65 {
		t.Errorf("link k2 --delay 50ms measured min %v ms, median %v ms", lo, median)
	}
}
