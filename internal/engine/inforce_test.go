package engine_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/powerfs"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

const inForceRunbook = "# Faults that prove themselves\n\n```kafka\n" +
	"topic create t --replicas 1:2:3\n" +
	"produce t --acks 1 --count 300\n" +
	"powerloss k1\n" +
	"start k1\n" +
	"wait healthy --timeout 2m\n" +
	"disk k3 --slow 5ms\n" +
	"loss k2 30%\n" +
	"link k3 --rate 1mbit/s\n" +
	"produce t --acks all --from 301 --count 100\n" +
	"sleep 2s\n" +
	"```\n"

// TestInForceAtEnd runs a power loss, then a slow disk, a loss and a
// narrow link left in force to the run's end, on a cluster of its own on
// the power-loss layer (the fast tier meets loss and link --rate in
// TestEveryDirectiveOnCluster). The power loss says each JVM gone, as
// /proc shows it, and what the layer discarded, as the layer counted it;
// the loss and the link say what the kernel holds in force at their step;
// the run's end records, before the heal, what each fault still in force
// did: the disk's delayed writes, the packets the loss dropped (about its
// share of those it counted), the bytes through the bucket. None is
// unproven.
func TestInForceAtEnd(t *testing.T) {
	testcluster.FullTier(t)
	if m := powerfs.Missing(); m != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the power-loss layer needs %s; CI must provide it", m)
		}
		t.Skipf("the power-loss layer needs %s", m)
	}
	b, _ := testcluster.StartWith(t, cluster.Config{Kafka: testcluster.Version(), Nodes: 3, PowerLoss: true})
	res, _, out, err := runRunbook(t, b, t.TempDir(), "inforce.md", inForceRunbook)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	faults := map[string]results.Fault{}
	for _, f := range res.Runs[0].Faults {
		t.Logf("%s %v: %s", f.Op, f.Nodes, f.Observed)
		if f.Unproven {
			t.Errorf("%s %v: unproven: %s", f.Op, f.Nodes, f.Observed)
		}
		faults[f.Op] = f
	}
	want := map[string]*regexp.Regexp{
		"powerloss":     regexp.MustCompile(`^k1: pid \d+ is gone; k1's layer discarded [0-9.]+ (B|KiB|MiB) in \d+ file\(s\)`),
		"loss":          regexp.MustCompile(`^k2's kernel now drops each packet with probability 0\.3 `),
		"link":          regexp.MustCompile(`^k3's \S+ now sends through a token bucket at 1Mbit \(tc\)$`),
		"disk":          regexp.MustCompile(`^k3's layer now answers as a slow 5ms disk$`),
		"disk in force": regexp.MustCompile(`^k3's disk \(slow 5ms\) delayed [1-9]\d* writes and fsyncs$`),
		"loss in force": regexp.MustCompile(`^k2's loss of 30% dropped [1-9]\d* of the (\d+) packets k2 sent and received`),
		"link in force": regexp.MustCompile(`^k3's link \(1Mbit on \S+\) sent [1-9]\d* bytes in [1-9]\d* packets`),
	}
	for op, re := range want {
		if f, ok := faults[op]; !ok || !re.MatchString(f.Observed) {
			t.Errorf("%s: observed %q, want it to match %s", op, f.Observed, re)
		}
	}
	// The loss's counts agree with its share: of a hundred packets or
	// more, a 30% rule drops between 15% and 45%.
	m := regexp.MustCompile(`dropped (\d+) of the (\d+) packets`).FindStringSubmatch(faults["loss in force"].Observed)
	if m != nil {
		dropped, _ := strconv.Atoi(m[1])
		seen, _ := strconv.Atoi(m[2])
		if seen >= 100 && (dropped*100 < seen*15 || dropped*100 > seen*45) {
			t.Errorf("loss k2 30%%: the kernel dropped %d of %d packets", dropped, seen)
		}
	}
	if !strings.Contains(out, "at the run's end, k2's loss of 30%") {
		t.Errorf("the console does not say what the loss did at the run's end")
	}
}
