package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

// TestExampleOnKubernetes runs two of the examples once each on the
// Kubernetes backend (full tier: the fast tier proves the backend with
// its fault table and its client pod's tests), in a namespace
// of its own, as a user would with --backend kubernetes: the cluster is
// a StatefulSet, and every client (franz-go's producer driver, the
// consumer group members) is a process in the clients' pod. producer-acks: acks=1 must lose acknowledged
// messages while acks=all loses none, as on the other backends.
// consumer-commits: each commit mode's tally, with a member crashed by a
// real SIGKILL in the pod, must hold as the runbook expects.
func TestExampleOnKubernetes(t *testing.T) {
	testcluster.FullTier(t)
	kc := testcluster.Kubeconfig(t)
	bin := buildKafkabook(t)
	for _, name := range []string{"producer-acks", "consumer-commits"} {
		t.Run(name, func(t *testing.T) {
			ns := testcluster.Namespace(t, kc)
			out := t.TempDir()
			f := filepath.Join("..", "..", "examples", name+".md")
			begin := time.Now()
			args := []string{"run", f, "--repeat", "1", "--backend", "kubernetes", "--namespace", ns, "--out", out, "--record-host=false"}
			if kc != "" {
				args = append(args, "--kubeconfig", kc)
			}
			stdout, stderr, code := runKB(t, bin, t.TempDir(), args...)
			t.Logf("%s on kubernetes: exit %d in %s", name, code, time.Since(begin).Round(time.Second))
			if code != 0 {
				t.Fatalf("kafkabook run exited with %d, want 0 (every expectation held)\n%s\n%s", code, tail(stdout, 80), stderr)
			}
			dirs, _ := filepath.Glob(filepath.Join(out, name, "kafka-*", "2*"))
			if len(dirs) != 1 {
				t.Fatalf("evidence directories %v, want one", dirs)
			}
			checkExample(t, f, dirs[0])
			res, err := results.Load(dirs[0])
			if err != nil {
				t.Fatal(err)
			}
			if res.Provenance.Backend != "kubernetes" {
				t.Errorf("provenance backend %q, want kubernetes", res.Provenance.Backend)
			}
			if name == "producer-acks" {
				t.Logf("lost per run: acks1 %v, acksall %v", res.LostPerRun("acks1"), res.LostPerRun("acksall"))
			}
		})
	}
}
