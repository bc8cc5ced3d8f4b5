package powerfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFaults sets each disk fault in a layer of its own process, through
// PutFault as kafkabook does, and checks it with plain system calls on the
// mount: the errno a write, an fsync and a read get, how long a write
// waits, and that healing gives back a disk that works, with what was
// written before the fault intact.
func TestFaults(t *testing.T) {
	cmd, _, mnt, stats, logFile := startProcess(t)
	pid := cmd.Process.Pid
	put := func(f Fault) {
		t.Helper()
		if err := PutFault(pid, stats, f, 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	hits := func() Hits {
		t.Helper()
		_, h, err := AskFault(pid, stats, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	seg := filepath.Join(mnt, "00000000000000000000.log")
	f, err := os.OpenFile(seg, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("before"); err != nil {
		t.Fatal(err)
	}

	put(Fault{Full: true})
	if _, err := f.WriteString("during"); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("a write to a full disk: %v, want ENOSPC", err)
	}
	if err := os.WriteFile(filepath.Join(mnt, "new"), []byte("x"), 0o644); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("a new file's write on a full disk: %v, want ENOSPC", err)
	}
	if _, err := f.WriteAt([]byte("B"), 0); err != nil {
		t.Errorf("an overwrite within the file on a full disk: %v, want it to succeed", err)
	}
	if err := f.Sync(); err != nil {
		t.Errorf("fsync on a full disk of what was written before: %v", err)
	}
	if h := hits(); h.Refused != 2 {
		t.Errorf("the full disk refused %d operations, want 2", h.Refused)
	}

	put(Fault{Fail: true})
	if _, err := f.WriteString("during"); !errors.Is(err, syscall.EIO) {
		t.Errorf("a write to a failed disk: %v, want EIO", err)
	}
	if err := f.Sync(); !errors.Is(err, syscall.EIO) {
		t.Errorf("an fsync on a failed disk: %v, want EIO", err)
	}
	if _, err := os.Create(filepath.Join(mnt, "other")); !errors.Is(err, syscall.EIO) {
		t.Errorf("a creation on a failed disk: %v, want EIO", err)
	}

	const slow = 200 * time.Millisecond
	put(Fault{Slow: slow})
	start := time.Now()
	for range 3 {
		if _, err := f.WriteString("slow"); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < 3*slow || took > 3*slow+time.Second {
		t.Errorf("3 writes on a disk slowed by %v took %v", slow, took)
	}
	start = time.Now()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < slow {
		t.Errorf("an fsync on a disk slowed by %v took %v", slow, took)
	}
	if h := hits(); h.Delayed != 4 || h.Refused != 0 {
		t.Errorf("the slow disk: %+v, want 4 delayed and none refused", h)
	}

	put(Fault{})
	if _, err := f.WriteString("after"); err != nil {
		t.Errorf("a write after heal: %v", err)
	}
	if data, err := os.ReadFile(seg); err != nil || string(data) != "Beforeslowslowslowafter" {
		t.Errorf("the segment holds %q (%v), want Beforeslowslowslowafter", data, err)
	}
	logData, _ := os.ReadFile(logFile)
	for _, want := range []string{"the disk is full (writes: ENOSPC)", "the disk is failed (every operation: EIO)", "the disk is healthy"} {
		if !strings.Contains(string(logData), want) {
			t.Errorf("the layer's log lacks %q:\n%s", want, logData)
		}
	}
}
