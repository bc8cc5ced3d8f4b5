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
	mnt, logFile, put, hits := faultLayer(t)
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

// TestSize limits a directory's size and checks it with plain system
// calls on the mount: statfs says the size and what is left, a write that
// fits is taken, the one past the size gets ENOSPC and one that fits in
// part writes that part, a sparse file (as Kafka's index files are) takes
// no space, a removed file gives its space back, healing lifts the limit,
// and Free sizes the directory at what it holds plus that much.
func TestSize(t *testing.T) {
	mnt, _, put, hits := faultLayer(t)
	// 100 KiB written before the limit: 25 blocks.
	if err := os.WriteFile(filepath.Join(mnt, "old.log"), make([]byte, 100<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	// An index file lengthened to 10 MiB with 5 bytes written: one block.
	idx, err := os.Create(filepath.Join(mnt, "old.index"))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if err := idx.Truncate(10 << 20); err != nil {
		t.Fatal(err)
	}
	if _, err := idx.WriteAt([]byte("entry"), 0); err != nil {
		t.Fatal(err)
	}
	if h := hits(); h.Used != 104<<10 {
		t.Errorf("the files take %d bytes, want 104 KiB (100 KiB and one block of the sparse index)", h.Used)
	}

	const size = 256 << 10
	put(Fault{Size: size})
	var sfs syscall.Statfs_t
	if err := syscall.Statfs(mnt, &sfs); err != nil {
		t.Fatal(err)
	}
	if total, free := int64(sfs.Blocks)*sfs.Frsize, int64(sfs.Bavail)*sfs.Frsize; total != size || free != size-104<<10 {
		t.Errorf("statfs: %d bytes, %d free; want %d and %d", total, free, size, size-104<<10)
	}
	seg, err := os.OpenFile(filepath.Join(mnt, "new.log"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	// 152 KiB are left: 38 appends of 4 KiB fit, the 39th does not.
	block := make([]byte, 4<<10)
	for i := range 38 {
		if _, err := seg.Write(block); err != nil {
			t.Fatalf("append %d of 38 that fit: %v", i+1, err)
		}
	}
	if _, err := seg.Write(block); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("an append past the size: %v, want ENOSPC", err)
	}
	if _, err := seg.WriteAt([]byte("overwrite"), 0); err != nil {
		t.Errorf("an overwrite of written blocks on a full directory: %v", err)
	}
	if h := hits(); h.Refused != 1 || h.Used != size {
		t.Errorf("%+v, want 1 refused and %d bytes used", h, size)
	}

	// Space given back takes writes again.
	if err := os.Remove(filepath.Join(mnt, "old.log")); err != nil {
		t.Fatal(err)
	}
	if _, err := seg.Write(block); err != nil {
		t.Errorf("an append after 100 KiB were removed: %v", err)
	}
	if h := hits(); h.Used != size-96<<10 {
		t.Errorf("after the removal and one append the files take %d bytes, want %d", h.Used, size-96<<10)
	}
	// A write larger than what is left writes what fits (a short write;
	// Go's Write then writes again and gets ENOSPC).
	if n, err := seg.Write(make([]byte, 1<<20)); n != 96<<10 || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("a 1 MiB append with 96 KiB left wrote %d bytes (%v), want 96 KiB and ENOSPC", n, err)
	}
	if fi, err := seg.Stat(); err != nil || fi.Size() != (38+1)*4<<10+96<<10 {
		t.Errorf("the segment is %d bytes long (%v), want its appends and what fitted of the last", fi.Size(), err)
	}

	put(Fault{})
	if _, err := seg.Write(make([]byte, 1<<20)); err != nil {
		t.Errorf("a 1 MiB append once healed: %v", err)
	}

	// Free: the size is what the files take when it is set, plus Free.
	used := hits().Used
	put(Fault{Free: 64 << 10})
	if err := syscall.Statfs(mnt, &sfs); err != nil {
		t.Fatal(err)
	}
	if total := int64(sfs.Blocks) * sfs.Frsize; total != used+64<<10 {
		t.Errorf("statfs with 64 KiB free over %d bytes taken: %d bytes", used, total)
	}
	if n, err := seg.Write(make([]byte, 128<<10)); n != 64<<10 || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("a 128 KiB append with 64 KiB free wrote %d bytes (%v), want 64 KiB and ENOSPC", n, err)
	}
}

// faultLayer starts a layer in a process of its own and returns its
// mount, its log, and how to put a fault in force and read its hits, as
// kafkabook does (PutFault, AskFault).
func faultLayer(t *testing.T) (mnt, logFile string, put func(Fault), hits func() Hits) {
	cmd, _, mnt, stats, logFile := startProcess(t)
	pid := cmd.Process.Pid
	put = func(f Fault) {
		t.Helper()
		if err := PutFault(pid, stats, f, 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	hits = func() Hits {
		t.Helper()
		_, h, err := AskFault(pid, stats, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	return mnt, logFile, put, hits
}
