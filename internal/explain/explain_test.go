package explain

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGolden explains trimmed copies of published runs and compares the
// whole explanation, every statement and line, with testdata/NAME.golden.
func TestGolden(t *testing.T) {
	for name := range testRuns {
		t.Run(name, func(t *testing.T) {
			got := render(readRun(t, name))
			path := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("explanation of %s differs from %s (run with -update to accept):\n%s", name, path, got)
			}
		})
	}
}

// findings returns the findings of every run of a trimmed published run.
func findings(t *testing.T, name string) []Finding {
	t.Helper()
	var out []Finding
	for _, run := range readRun(t, name).Runs {
		out = append(out, Run(run).Findings...)
	}
	return out
}

func hasStep(f Finding, sub string) bool {
	for _, s := range f.Steps {
		if strings.Contains(s.Text, sub) {
			return true
		}
	}
	return false
}

// TestPowerLossElections checks the fact-check's findings on the published
// power-loss runs: the new leader was the broker whose session the
// restarted controller fenced last; on 4.0.x a clean election of the ISR's
// only member, on 4.1+ KIP-966's last-known-leader fallback logged as an
// unclean election.
func TestPowerLossElections(t *testing.T) {
	kinds := map[string]string{
		"power-loss-4.0.0": "clean election of k",
		"power-loss-4.1.0": "last-known-leader election of k",
		"power-loss-4.3.1": "last-known-leader election of k",
		"power-loss-4.4.0": "last-known-leader election of k",
	}
	for name, kind := range kinds {
		fs := findings(t, name)
		if len(fs) == 0 {
			t.Errorf("%s: no findings", name)
		}
		for _, f := range fs {
			if f.Kind != FindingLost || !f.Visible || !strings.HasPrefix(f.Cause, kind) {
				t.Errorf("%s %s: %s finding, cause %q; want a visible loss by %q…", name, f.Topic, f.Kind, f.Cause, kind)
			}
			if !hasStep(f, "the new leader, was fenced last") {
				t.Errorf("%s %s: the new leader was not the broker fenced last", name, f.Topic)
			}
			if f.Topic == "plast" && !strings.Contains(f.Cause, "k2, k3 truncated to offset 0") {
				t.Errorf("%s plast: cause %q; want k2 and k3 truncated to offset 0", name, f.Cause)
			}
		}
	}
}

// TestProducerAcks checks the acks article's runs: k1, killed after
// acknowledging m-011..m-020 alone, comes back and truncates them away
// under k2 or k3, elected in a clean election.
func TestProducerAcks(t *testing.T) {
	fs := findings(t, "producer-acks-4.4.0")
	if len(fs) != 1 {
		t.Fatalf("producer-acks-4.4.0: %d findings, want 1", len(fs))
	}
	f := fs[0]
	if f.Topic != "acks1" || f.Range != "m-011..m-020 (offsets 10..19)" || f.Count != 10 {
		t.Errorf("finding %s %s (%d), want acks1 m-011..m-020 (offsets 10..19) (10)", f.Topic, f.Range, f.Count)
	}
	if !strings.HasPrefix(f.Cause, "clean election of k2") && !strings.HasPrefix(f.Cause, "clean election of k3") {
		t.Errorf("cause %q, want a clean election of k2 or k3", f.Cause)
	}
	if !strings.Contains(f.Cause, "after isolation of k2, k3 and kill of k1") || !strings.Contains(f.Cause, "k1 truncated to offset 10") {
		t.Errorf("cause %q, want the kill of k1 and its truncation to offset 10", f.Cause)
	}
	if !hasStep(f, "where 10 of the lost messages had been acknowledged (m-011..m-020)") {
		t.Errorf("no step ties k1's truncation to m-011..m-020")
	}

	fs = findings(t, "producer-acks-4.1.0")
	if len(fs) != 1 || fs[0].Count != 20 || !strings.Contains(fs[0].Cause, "k1, k3 truncated to offset 0") {
		t.Errorf("producer-acks-4.1.0: %+v; want 20 lost, k1 and k3 truncated to offset 0", fs)
	}
}

// TestCutShortLogs: a run whose broker logs end before the fault says the
// cause is not visible rather than guess.
func TestCutShortLogs(t *testing.T) {
	r := readRun(t, "producer-acks-4.4.0")
	run := r.Runs[0]
	var kill results.Fault
	for _, f := range run.Faults {
		if f.Op == "kill" {
			kill = f
			break
		}
	}
	var kept []results.LogLine
	for _, l := range run.Logs {
		if l.At.Before(kill.At) {
			kept = append(kept, l)
		}
	}
	run.Logs, run.Steps = kept, nil
	fs := Run(run).Findings
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1", len(fs))
	}
	if fs[0].Cause != NotVisible || fs[0].Visible {
		t.Errorf("cause %q (visible %v), want %q", fs[0].Cause, fs[0].Visible, NotVisible)
	}
	if got := Run(run).Cause; got != "acks1: "+NotVisible {
		t.Errorf("run cause %q", got)
	}
}

// TestOtherFindings checks a refusal, a duplicate batch and unapplied
// records on published runs.
func TestOtherFindings(t *testing.T) {
	for _, tt := range []struct{ name, kind, cause string }{
		{"min-insync-4.4.0", FindingRefused, "the ISR shrink of "},
		{"idempotence-4.4.0", FindingDuplicate, "written again by the producer's retry"},
		{"consumer-4.4.0", FindingUnapplied, "member 1's "},
	} {
		found := false
		for _, f := range findings(t, tt.name) {
			if f.Kind == tt.kind {
				found = true
				if !f.Visible || !strings.HasPrefix(f.Cause, tt.cause) {
					t.Errorf("%s %s: cause %q, want %q…", tt.name, f.Kind, f.Cause, tt.cause)
				}
			}
		}
		if !found {
			t.Errorf("%s: no %s finding", tt.name, tt.kind)
		}
	}
}

// TestZombieLeader: k1, cut off from k2 and k3, went on acknowledging
// after k2 had been elected; the explanation finds k2's election although
// it came before the last acknowledgement.
func TestZombieLeader(t *testing.T) {
	fs := findings(t, "zombie-leader-4.1.2")
	if len(fs) != 1 || !strings.HasPrefix(fs[0].Cause, "clean election of k2") || !strings.HasSuffix(fs[0].Cause, "k1 truncated to offset 10") {
		t.Errorf("findings %+v; want one loss by the clean election of k2, k1 truncated to offset 10", fs)
	}
}
