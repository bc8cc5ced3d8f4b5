package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

// TestExampleOnKubernetes runs the acks article's runbook once on the
// Kubernetes backend, in a namespace of its own, as a user would with
// --backend kubernetes: the cluster is a StatefulSet, the producer's
// connections leave from the clients' pod, and acks=1 must lose
// acknowledged messages while acks=all loses none, as on the other
// backends.
func TestExampleOnKubernetes(t *testing.T) {
	kc := testcluster.Kubeconfig(t)
	ns := testcluster.Namespace(t, kc)
	bin := buildKafkabook(t)
	out := t.TempDir()
	f := filepath.Join("..", "..", "examples", "producer-acks.md")
	begin := time.Now()
	args := []string{"run", f, "--repeat", "1", "--backend", "kubernetes", "--namespace", ns, "--out", out, "--record-host=false"}
	if kc != "" {
		args = append(args, "--kubeconfig", kc)
	}
	stdout, stderr, code := runKB(t, bin, t.TempDir(), args...)
	t.Logf("producer-acks on kubernetes: exit %d in %s", code, time.Since(begin).Round(time.Second))
	if code != 0 {
		t.Fatalf("kafkabook run exited with %d, want 0 (every expectation held)\n%s\n%s", code, tail(stdout, 80), stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "producer-acks", "kafka-*", "2*"))
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
	t.Logf("lost per run: acks1 %v, acksall %v", res.LostPerRun("acks1"), res.LostPerRun("acksall"))
}
