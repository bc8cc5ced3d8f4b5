package external_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/external"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// kafkabook builds the kafkabook binary once for the package's tests: the
// fault commands of the cluster files are `kafkabook cluster OP` in a
// process of its own.
func kafkabook(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "kafkabook-external-test-"); buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "kafkabook")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/kafkabook/kafkabook/cmd/kafkabook").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building kafkabook: %v", buildErr)
	}
	return binPath
}

// kb runs the built kafkabook and returns its output and exit code.
func kb(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(kafkabook(t), args...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	case err != nil:
		t.Fatalf("kafkabook %s: %v", strings.Join(args, " "), err)
	}
	return string(out), 0
}

// TestCheckRefusesFaultWithoutCommand: a runbook that kills a node of an
// external cluster whose file has no kill command (or no start, which the
// next run needs to bring it back) fails check at the step, file:line:col.
func TestCheckRefusesFaultWithoutCommand(t *testing.T) {
	dir := t.TempDir()
	cf := filepath.Join(dir, "cluster.yaml")
	os.WriteFile(cf, []byte(`name: prod
nodes:
  - {name: broker1, id: 1, address: "broker1:9092"}
  - {name: broker2, id: 2, address: "broker2:9092"}
  - {name: broker3, id: 3, address: "broker3:9092"}
faults:
  kill: [ssh, "{node}", sudo, systemctl, kill, -s, KILL, kafka]
`), 0o644)
	rb := filepath.Join(dir, "rb.md")
	os.WriteFile(rb, []byte("---\ntitle: t\nbackend: external\n---\n\n```kafka\ntopic create a --replicas 1:2:3\nkill k1\npause k2\n```\n"), 0o644)
	out, code := kb(t, "check", "--cluster-file", cf, rb)
	if code != 3 {
		t.Fatalf("check exited %d, want 3:\n%s", code, out)
	}
	for _, want := range []string{
		rb + ":8:1: ", "external cluster prod has no command for start",
		rb + ":9:1: ", "no command for pause and resume",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	// A reassignment goes through the admin API and needs no command; a
	// change of release needs what the external backend lacks.
	os.WriteFile(rb, []byte("---\ntitle: t\nbackend: external\n---\n\n```kafka\ntopic create a --replicas 1:2:3\nreassign a --replicas 2:3:1\nwait reassigned a\nroll --to 4.3.1\n```\n"), 0o644)
	out, code = kb(t, "check", "--cluster-file", cf, rb)
	if code != 3 || !strings.Contains(out, rb+":10:1: the external cluster prod has no command for stop and start") ||
		strings.Contains(out, rb+":8:1") || strings.Contains(out, rb+":9:1") {
		t.Errorf("check of reassign and roll --to on an external cluster exited %d:\n%s", code, out)
	}
	// With stop and start, a change of release needs the file's release
	// command, and takes it.
	base := `name: prod
nodes:
  - {name: broker1, id: 1, address: "broker1:9092"}
  - {name: broker2, id: 2, address: "broker2:9092"}
  - {name: broker3, id: 3, address: "broker3:9092"}
faults:
  stop: [ssh, "{node}", sudo, systemctl, stop, kafka]
  start: [ssh, "{node}", sudo, systemctl, start, kafka]
`
	os.WriteFile(cf, []byte(base), 0o644)
	if out, code := kb(t, "check", "--cluster-file", cf, rb); code != 3 || !strings.Contains(out, rb+":10:1: the external cluster prod has no command that puts a node on another release: add release: [...]") {
		t.Errorf("check of roll --to without a release command exited %d:\n%s", code, out)
	}
	os.WriteFile(cf, []byte(base+"release: [ssh, \"{node}\", sudo, /opt/upgrade-kafka, \"{version}\"]\n"), 0o644)
	if out, code := kb(t, "check", "--cluster-file", cf, rb); code != 0 {
		t.Errorf("check of roll --to with a release command exited %d:\n%s", code, out)
	}
	os.WriteFile(cf, []byte(base+"release: [upgrade, \"{node}\", \"{release}\"]\n"), 0o644)
	if out, code := kb(t, "check", "--cluster-file", cf, rb); code != 3 || !strings.Contains(out, "the placeholders are {node}, {id}, {address}, {version}") {
		t.Errorf("check with an unknown placeholder in release exited %d:\n%s", code, out)
	}
	os.WriteFile(cf, []byte(base), 0o644)
	// The runbook's nodes must be the cluster's.
	os.WriteFile(rb, []byte("---\ntitle: t\nnodes: 2\n---\n\n```kafka\nsleep 1s\n```\n"), 0o644)
	if out, code := kb(t, "check", "--cluster-file", cf, rb); code != 3 || !strings.Contains(out, "the runbook has 2 nodes") {
		t.Errorf("check of a 2-node runbook against 3 nodes exited %d:\n%s", code, out)
	}
	// With every command it needs, the runbook is fine; it may name the
	// nodes as the cluster file does.
	os.WriteFile(rb, []byte("---\ntitle: t\n---\n\n```kafka\ntopic create a --replicas 1:2:3\nkill broker1\nwait leader a in broker2,k3\nread a --via broker3\nkill broker4\n```\n"), 0o644)
	os.WriteFile(cf, []byte(`name: prod
nodes:
  - {name: broker1, id: 1, address: "broker1:9092"}
  - {name: broker2, id: 2, address: "broker2:9092"}
  - {name: broker3, id: 3, address: "broker3:9092"}
faults:
  kill: [ssh, "{node}", sudo, systemctl, kill, -s, KILL, kafka]
  start: [ssh, "{node}", sudo, systemctl, start, kafka]
`), 0o644)
	out, code = kb(t, "check", "--cluster-file", cf, rb)
	if code != 3 || strings.Count(out, "^") != 1 || !strings.Contains(out, rb+":10:6: ") {
		t.Errorf("check with kill and start commands exited %d, want one error, at broker4 (10:6):\n%s", code, out)
	}
}

// TestExternalSecureLocal starts a local cluster with a SASL_SSL client
// listener through the kafkabook binary, then drives it as an external
// cluster through the cluster file `cluster up --security` wrote: the
// shared fault table (each fault a `kafkabook cluster OP` command; the
// fast tier a kill and a start), then
// examples/producer-acks.md, whose evidence must show acks=1 losing and
// acks=all not, and never the SASL password.
func TestExternalSecureLocal(t *testing.T) {
	testcluster.Require(t)
	start := time.Now()
	state := t.TempDir()
	t.Setenv("KAFKABOOK_STATE", state)
	name := testcluster.Name()
	t.Cleanup(func() {
		if out, code := kb(t, "cluster", "down", "--backend", "local", "--name", name); code != 0 {
			t.Errorf("cluster down: exit %d\n%s", code, out)
		}
	})
	out, code := kb(t, "cluster", "up", "--backend", "local", "--security", "sasl-ssl", "--name", name, "--kafka", testcluster.Version(),
		"--set", "replica.lag.time.max.ms=3000")
	if code != 0 {
		t.Fatalf("cluster up --security sasl-ssl: exit %d\n%s", code, out)
	}
	t.Logf("secure cluster up in %s", time.Since(start).Round(time.Second))
	cf := filepath.Join(state, "clusters", name, "cluster-file.yaml")
	if !strings.Contains(out, cf) {
		t.Errorf("cluster up does not name the cluster file %s:\n%s", cf, out)
	}
	pw, err := os.ReadFile(filepath.Join(state, "clusters", name, "admin.password"))
	if err != nil {
		t.Fatal(err)
	}
	password := strings.TrimSpace(string(pw))
	if data, _ := os.ReadFile(cf); bytes.Contains(data, []byte(password)) {
		t.Fatalf("the cluster file holds the password")
	}

	b, err := external.New(cf)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := b.Up(ctx, cluster.Config{Nodes: 3, Ready: kafka.Ready}, t.Logf)
	if err != nil {
		t.Fatalf("external up: %v", err)
	}
	access, err := b.Access(ctx)
	if err != nil || access.TLS == nil || access.SASL == nil || access.SASL.Mechanism != "SCRAM-SHA-512" {
		t.Fatalf("access %+v, %v: want TLS and SCRAM-SHA-512", access, err)
	}
	// Without the credentials the SASL_SSL listener answers nothing.
	plain, _ := kafka.Dial(kafka.Brokers{Seeds: st.Bootstrap(), Access: cluster.Access{TLS: access.TLS}})
	bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	if _, err := plain.Brokers(bctx); err == nil {
		t.Errorf("a client without SASL listed the brokers of the SASL_SSL listener")
	}
	cancel()
	plain.Close()

	t.Run("faults", func(t *testing.T) {
		begin := time.Now()
		if !testcluster.Full() {
			// The fast tier: a fault and its repair through the cluster
			// file's commands, each seen from outside: k3's listener
			// refuses connections once it is killed and answers again
			// once it is started. The whole table, which every other
			// backend's fast tier walks, is the full tier's here.
			k3, _ := st.Node("k3")
			answers := func() bool {
				c, err := net.DialTimeout("tcp", k3.Address, time.Second)
				if err == nil {
					c.Close()
				}
				return err == nil
			}
			wait := func(want bool, what string) {
				t.Helper()
				for deadline := time.Now().Add(60 * time.Second); answers() != want; time.Sleep(200 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("k3's listener (%s) %s within 60s", k3.Address, what)
					}
				}
			}
			testcluster.Apply(t, b, cluster.Kill, "k3")
			wait(false, "still answers after kill")
			testcluster.Apply(t, b, cluster.Start, "k3")
			wait(true, "does not answer after start")
			t.Logf("kill and start through cluster-file commands, seen at k3's listener, in %s", time.Since(begin).Round(100*time.Millisecond))
			return
		}
		testcluster.Faults(t, b, st)
		t.Logf("fault table through cluster-file commands in %s", time.Since(begin).Round(time.Second))
	})

	// An example end to end through the external backend is the full
	// tier's: the fast tier's members run below logs the Java driver's
	// producer and member in through SASL_SSL.
	t.Run("producer-acks", func(t *testing.T) {
		testcluster.FullTier(t)
		begin := time.Now()
		outDir := t.TempDir()
		clients := "franz-go,java"
		out, code := kb(t, "run", "../../../examples/producer-acks.md", "--repeat", "1", "--kafka", testcluster.Version(),
			"--client", clients, "--cluster-file", cf, "--out", outDir, "--record-host=false")
		t.Logf("producer-acks on the external backend: exit %d in %s", code, time.Since(begin).Round(time.Second))
		if code != 0 {
			t.Fatalf("run exited %d:\n%s", code, out)
		}
		if strings.Contains(out, password) {
			t.Errorf("the run's output holds the SASL password")
		}
		dirs, _ := filepath.Glob(filepath.Join(outDir, "producer-acks", "kafka-*", "2*"))
		if len(dirs) != len(strings.Split(clients, ",")) {
			t.Fatalf("evidence directories %v, want one per client", dirs)
		}
		for _, dir := range dirs {
			res, err := results.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if res.Provenance.Backend != external.Name {
				t.Errorf("provenance backend %q, want external", res.Provenance.Backend)
			}
			lost1, lostAll := res.LostPerRun("acks1"), res.LostPerRun("acksall")
			t.Logf("%s: lost per run: acks1 %v, acksall %v", filepath.Base(filepath.Dir(dir)), lost1, lostAll)
			if len(lost1) != 1 || lost1[0] == 0 || len(lostAll) != 1 || lostAll[0] != 0 {
				t.Errorf("%s: lost per run acks1 %v, acksall %v: want acks=1 to lose and acks=all not", dir, lost1, lostAll)
			}
		}
		noSecret(t, outDir, password)
	})

	// Group members are processes: kafkabook's own gets the password in
	// its environment, not on its command line; the Java driver's (its
	// producer's and its member's) in its spec on stdin.
	t.Run("members", func(t *testing.T) {
		begin := time.Now()
		outDir := t.TempDir()
		rb := filepath.Join(t.TempDir(), "members.md")
		os.WriteFile(rb, []byte(membersRunbook), 0o644)
		out, code := kb(t, "run", rb, "--kafka", testcluster.Version(), "--cluster-file", cf, "--out", outDir, "--record-host=false")
		t.Logf("members on the external backend: exit %d in %s", code, time.Since(begin).Round(time.Second))
		if code != 0 {
			t.Fatalf("run exited %d:\n%s", code, out)
		}
		if strings.Contains(out, password) {
			t.Errorf("the run's output holds the SASL password")
		}
		noSecret(t, outDir, password)
	})

	// Without a logs command a logs step says so, and the run completes.
	t.Run("no logs", func(t *testing.T) {
		rb := filepath.Join(t.TempDir(), "nologs.md")
		os.WriteFile(rb, []byte("---\ntitle: no logs\n---\n\n```kafka\ntopic create n --replicas 1:2:3\nproduce n --acks all --count 5\nlogs k1 --grep ISR\n```\n"), 0o644)
		out, code := kb(t, "run", rb, "--kafka", testcluster.Version(), "--cluster-file", withoutLogs(t, cf), "--out", t.TempDir())
		if code != 0 {
			t.Fatalf("run exited %d:\n%s", code, out)
		}
		for _, want := range []string{"the evidence will have no broker log lines", "k1: no broker log"} {
			if !strings.Contains(out, want) {
				t.Errorf("the run's output lacks %q:\n%s", want, out)
			}
		}
	})
}

const membersRunbook = `---
title: group members through SASL_SSL
---

# Members log in

` + "```kafka" + `
topic create g --replicas 1:2:3
produce g --acks all --count 10 --key 2
consume g --group g --client franz-go --commit after --batch 10 &
wait consumer g --timeout 60s
expect delivered(g) == 10
expect committed(g) == 10
topic create j --replicas 1:2:3
produce j --client java --acks all --count 10 --key 2
expect lost(j) == 0
consume j --group j --client java --commit after --batch 10 &
wait consumer j --timeout 60s
expect delivered(j) == 10
expect committed(j) == 10
` + "```\n"

// withoutLogs writes a copy of the cluster file cf, beside it, without
// its logs command.
func withoutLogs(t *testing.T, cf string) string {
	data, err := os.ReadFile(cf)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, "\nlogs:")
	if i < 0 {
		t.Fatalf("the cluster file has no logs command:\n%s", text)
	}
	path := filepath.Join(filepath.Dir(cf), "cluster-file-nologs.yaml")
	if err := os.WriteFile(path, []byte(text[:i+1]), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// noSecret fails when any file under dir, gzipped or not, holds secret.
func noSecret(t *testing.T, dir, secret string) {
	t.Helper()
	n := 0
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Errorf("%s: %v", path, err)
				return nil
			}
			data, _ = io.ReadAll(zr)
		}
		n++
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("%s holds the SASL password", path)
		}
		return nil
	})
	if n == 0 {
		t.Errorf("no evidence files under %s", dir)
	}
}
