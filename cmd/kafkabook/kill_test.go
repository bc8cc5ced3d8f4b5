package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// killRunbook runs on a one-node cluster and then sleeps ${pause}, so that
// the run can be caught mid-experiment.
const killRunbook = "---\ntitle: killed\nnodes: 1\nparams: {pause: 1s}\n---\n\n```kafka\n" +
	"topic create t --replicas 1\nproduce t --acks 1 --count 3\nsleep ${pause}\n```\n"

// TestKilledRuns kills kafkabook in the ways a CI timeout, the OOM killer or
// an impatient user do, and checks that nothing of a private cluster
// outlives it, that a kept one does, and that down names what it cannot
// remove. Each case has its own state directory and cluster names, and
// takes its cluster down when it ends, pass or fail.
func TestKilledRuns(t *testing.T) {
	testcluster.Require(t)
	bin := buildKafkabook(t)
	for _, tc := range []struct {
		name, pause string
		at          *regexp.Regexp // SIGKILL (or the first SIGINT) on this output line
		twice       bool           // SIGINT, then SIGINT again once cleanup started
	}{
		{"boot", "60s", regexp.MustCompile(`waiting for brokers`), false},
		{"mid-experiment", "60s", regexp.MustCompile(`^\$ sleep`), false},
		{"teardown", "1s", regexp.MustCompile(`taking the cluster down`), false},
		{"second-interrupt", "60s", regexp.MustCompile(`^\$ sleep`), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dir := t.TempDir()
			rb := filepath.Join(dir, "killed.md")
			if err := os.WriteFile(rb, []byte(killRunbook), 0o644); err != nil {
				t.Fatal(err)
			}
			p := startKB(t, bin, root, "run", "--kafka", testcluster.Version(), "--out", filepath.Join(dir, "out"), "-p", "pause="+tc.pause, rb)
			name := fmt.Sprintf("run%d", p.cmd.Process.Pid)
			cleanupCluster(t, root, name)

			p.waitLine(t, tc.at, 3*time.Minute)
			if tc.twice {
				p.cmd.Process.Signal(os.Interrupt)
				p.waitLine(t, regexp.MustCompile(`interrupted: cleaning up`), 10*time.Second)
				p.cmd.Process.Signal(os.Interrupt)
			} else {
				p.cmd.Process.Kill()
			}
			code := p.wait(t, 30*time.Second)
			if tc.twice {
				if code != exitRun || !strings.Contains(p.output(), "interrupted again: exiting without finishing cleanup") {
					t.Errorf("after a second interrupt: exit %d, want %d and a message\n%s", code, exitRun, p.output())
				}
			}
			left := dirExists(filepath.Join(root, "clusters", name))
			t.Logf("%s: killed; cluster directory left: %v", tc.name, left)

			// Its JVMs die with it.
			if err := poll.Until(context.Background(), 100*time.Millisecond, 5*time.Second, nil, func(context.Context) (bool, string, error) {
				pids := jvmsUnder(root)
				return len(pids) == 0, fmt.Sprintf("JVMs %v still run", pids), nil
			}); err != nil {
				t.Errorf("after the kill: %v", err)
			}
			// The next command removes the rest, and says so.
			_, stderr, code := runKB(t, bin, root, "cluster", "list")
			want := regexp.MustCompile(`(?m)^removed abandoned cluster ` + name + `, owner pid ` + strconv.Itoa(p.cmd.Process.Pid) + ` gone since \d\d:\d\d$`)
			if code != 0 || left && !want.MatchString(stderr) {
				t.Errorf("next command: exit %d, stderr:\n%s\nwant a line matching %s", code, stderr, want)
			}
			assertNoLeftovers(t, root, name)
		})
	}

	// A kept cluster (`cluster up`) outlives its starter, is listed, and is
	// never reaped; down names a leftover it cannot remove, and retries.
	t.Run("kept", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		name := "k" + randomHex(4)
		p := startKB(t, bin, root, "cluster", "up", "--name", name, "--nodes", "1", "--kafka", testcluster.Version())
		cleanupCluster(t, root, name)
		p.waitLine(t, regexp.MustCompile(`waiting for brokers`), 3*time.Minute)
		p.cmd.Process.Kill()
		p.wait(t, 30*time.Second)

		b, err := local.NewAt(root, name)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second) // a JVM killed with its starter would be gone by now
		st, err := b.Status(context.Background())
		if err != nil || len(st.Nodes) != 1 || !st.Nodes[0].State.Up() {
			t.Fatalf("the kept cluster did not survive its starter: %+v, %v", st, err)
		}
		stdout, stderr, code := runKB(t, bin, root, "cluster", "list", "--json")
		var infos []local.Info
		if err := json.Unmarshal([]byte(stdout), &infos); err != nil || code != 0 {
			t.Fatalf("cluster list --json: exit %d, %v\n%s%s", code, err, stdout, stderr)
		}
		if strings.Contains(stderr, "removed abandoned") || len(infos) != 1 ||
			infos[0].Name != name || !infos[0].Kept || infos[0].State != local.StateUp || infos[0].OwnerAlive {
			t.Errorf("cluster list: %+v\n%s", infos, stderr)
		}

		// A process that kafkabook did not start keeps a node's namespace.
		ns := "kb-" + name + "-k1"
		sleeper := exec.Command("ip", "netns", "exec", ns, "sleep", "600")
		if err := sleeper.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
		pid := sleeper.Process.Pid
		if err := poll.Until(context.Background(), 20*time.Millisecond, 5*time.Second, nil, func(context.Context) (bool, string, error) {
			comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
			return strings.TrimSpace(string(comm)) == "sleep", "ip netns exec has not started sleep", nil
		}); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code = runKB(t, bin, root, "cluster", "down", "--name", name)
		leftover := fmt.Sprintf("process %d (sleep) in the network namespace of k1", pid)
		if code != exitRun || !strings.Contains(stderr, leftover) || !strings.Contains(stderr, fmt.Sprintf("`kill %d`", pid)) || strings.Contains(stdout, "is down") {
			t.Errorf("down with a namespace held busy: exit %d, want %d naming %q and how to remove it\n%s%s", code, exitRun, leftover, stdout, stderr)
		}
		sleeper.Process.Kill()
		sleeper.Wait()
		stdout, stderr, code = runKB(t, bin, root, "cluster", "down", "--name", name)
		if code != 0 || !strings.Contains(stdout, "cluster "+name+" is down") {
			t.Errorf("second down: exit %d\n%s%s", code, stdout, stderr)
		}
		assertNoLeftovers(t, root, name)
	})
}

// buildKafkabook builds the binary users run.
func buildKafkabook(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kafkabook")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// kbProc is a running kafkabook whose output lines are watched.
type kbProc struct {
	cmd   *exec.Cmd
	lines chan string
	done  chan struct{} // output closed
	mu    sync.Mutex
	out   strings.Builder
	code  int
}

// startKB starts kafkabook with its own state root; it is killed when the
// test ends, if it still runs.
func startKB(t *testing.T, bin, root string, args ...string) *kbProc {
	t.Helper()
	p := &kbProc{cmd: exec.Command(bin, args...), lines: make(chan string, 1024), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "KAFKABOOK_STATE="+root)
	pr, pw := io.Pipe()
	p.cmd.Stdout, p.cmd.Stderr = pw, pw
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		p.code = exitCodeOf(err)
		pw.Close()
	}()
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("kafkabook %s:\n%s", strings.Join(args, " "), p.output())
		}
	})
	return p
}

func (p *kbProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitLine waits for an output line matching re.
func (p *kbProc) waitLine(t *testing.T, re *regexp.Regexp, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l := <-p.lines:
			if re.MatchString(l) {
				return
			}
		case <-p.done:
			t.Fatalf("kafkabook ended without printing a line matching %s", re)
		case <-deadline:
			t.Fatalf("no line matching %s within %s", re, timeout)
		}
	}
}

// wait waits for the process to end and returns its exit code.
func (p *kbProc) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(timeout):
		t.Fatalf("kafkabook still runs %s after the signal", timeout)
	}
	return 0
}

// runKB runs kafkabook to the end.
func runKB(t *testing.T, bin, root string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KAFKABOOK_STATE="+root)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	return o.String(), e.String(), exitCodeOf(err)
}

func exitCodeOf(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// cleanupCluster takes the cluster down when the test ends, whatever
// happened.
func cleanupCluster(t *testing.T, root, name string) {
	t.Cleanup(func() {
		b, err := local.NewAt(root, name)
		if err != nil {
			t.Error(err)
			return
		}
		if err := b.Down(context.Background(), func(string, ...any) {}); err != nil {
			t.Errorf("cleaning up: %v", err)
		}
	})
}

func assertNoLeftovers(t *testing.T, root, name string) {
	t.Helper()
	b, err := local.NewAt(root, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range b.Leftovers() {
		t.Errorf("%s remains", l)
	}
}

// jvmsUnder lists live processes whose command line names a path under
// root.
func jvmsUnder(root string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || !strings.Contains(string(cmdline), root+"/") {
			continue
		}
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] != 'Z' {
				out = append(out, pid)
			}
		}
	}
	return out
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return fmt.Sprintf("%x", b)
}
