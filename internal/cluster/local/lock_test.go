package local

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLockFileRemovedWhileWaitedOn: a process that waited on a lock file
// that was then removed does not hold a lock that a newcomer can take too.
func TestLockFileRemovedWhileWaitedOn(t *testing.T) {
	b, err := NewAt(t.TempDir(), "locktest")
	if err != nil {
		t.Fatal(err)
	}
	unlockA, err := b.lock()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan func())
	go func() {
		u, err := b.lock()
		if err != nil {
			t.Error(err)
		}
		got <- u
	}()
	time.Sleep(100 * time.Millisecond) // B waits on A's file
	if err := os.Remove(b.lockFile()); err != nil {
		t.Fatal(err)
	}
	unlockA()
	unlockB := <-got
	defer unlockB()
	if unlockC, ok, err := b.tryLock(); err != nil || ok {
		if ok {
			unlockC()
		}
		t.Fatalf("a newcomer got the lock while B holds it (err %v)", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(b.dir), "locktest.lock")); err != nil {
		t.Errorf("B holds no lock file at the path: %v", err)
	}
}
