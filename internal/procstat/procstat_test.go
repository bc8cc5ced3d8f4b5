package procstat

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestRead reads this test's own process, a child frozen and continued,
// and a pid once it is gone.
func TestRead(t *testing.T) {
	self, err := Read(os.Getpid())
	if err != nil || self.Stopped() || self.Dead() || self.Start == 0 {
		t.Fatalf("this process: %+v, %v", self, err)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer cmd.Process.Kill()
	cmd.Process.Signal(syscall.SIGSTOP)
	if s := waitState(t, pid, Stat.Stopped); !s.Stopped() {
		t.Errorf("after SIGSTOP: state %c", s.State)
	}
	cmd.Process.Signal(syscall.SIGCONT)
	if s := waitState(t, pid, func(s Stat) bool { return !s.Stopped() }); s.Stopped() {
		t.Errorf("after SIGCONT: state %c", s.State)
	}
	first, _ := Read(pid)
	cmd.Process.Kill()
	if s := waitState(t, pid, Stat.Dead); !s.Dead() || s.Start != first.Start {
		t.Errorf("killed, not reaped: %+v (started at %d)", s, first.Start)
	}
	cmd.Wait()
	if _, err := Read(pid); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reaped: %v, want fs.ErrNotExist", err)
	}
}

// waitState reads pid until ok holds, for at most 5 s, and returns the
// last reading.
func waitState(t *testing.T, pid int, ok func(Stat) bool) Stat {
	t.Helper()
	var s Stat
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var err error
		if s, err = Read(pid); err != nil {
			t.Fatal(err)
		}
		if ok(s) {
			break
		}
	}
	return s
}

// TestProc: this process is alive and itself; the same pid with another
// start time is a different process, gone; a reaped child is gone.
func TestProc(t *testing.T) {
	me := Self()
	if !me.Alive() || !me.IsSelf() || me.Start == 0 {
		t.Fatalf("Self() = %+v: alive %v, self %v", me, me.Alive(), me.IsSelf())
	}
	if anyStart := (Proc{PID: me.PID}); !anyStart.Alive() {
		t.Errorf("%+v (no start time): not alive", anyStart)
	}
	if later := (Proc{PID: me.PID, Start: me.Start + 1}); later.Alive() || later.IsSelf() {
		t.Errorf("%+v (another start time): alive", later)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if gone := (Proc{PID: cmd.Process.Pid}); gone.Alive() {
		t.Errorf("%+v (reaped): alive", gone)
	}
}

// TestParse reads stat lines as a shell elsewhere prints them: a JVM's
// (captured on a Linux 6 kernel), and a command name with a space and a
// parenthesis, whose fields start after the last ')'.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		line  string
		pid   int
		comm  string
		state byte
		start uint64
	}{
		{"1055 (java) S 972 1055 1055 0 -1 4194304 38861 0 2 0 361 59 0 0 20 0 78 0 2400612 2879569920 42846 18446744073709551615 94515720298496 94515720299381 140725378311760 0 0 0 0 0 16800975 0 0 0 17 0 0 0 0 0 0 94515720310080 94515720310808 94516730773504 140725378320644 140725378321060 140725378321060 140725378322410 0", 1055, "java", 'S', 2400612},
		{"77 (a b) c) T 1 77 77 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 12345 0 0", 77, "a b) c", 'T', 12345},
	} {
		pid, comm, st, err := Parse(c.line)
		if err != nil || pid != c.pid || comm != c.comm || st.State != c.state || st.Start != c.start {
			t.Errorf("Parse(%.30q) = %d %q %c %d, %v; want %d %q %c %d", c.line, pid, comm, st.State, st.Start, err, c.pid, c.comm, c.state, c.start)
		}
	}
	for _, bad := range []string{"", "java S 1", "x (java) S 1 2"} {
		if _, _, _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}
