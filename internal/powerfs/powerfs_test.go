package powerfs

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// requireFUSE fails the test under CI=true, and skips it elsewhere, when
// the layer cannot mount here.
func requireFUSE(t *testing.T) {
	t.Helper()
	if m := Missing(); m != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the power-loss layer needs %s; CI must provide it", m)
		}
		t.Skipf("needs %s", m)
	}
}

// layer is a mounted file system over a backing directory, served by this
// test process.
type layer struct {
	t            *testing.T
	backing, mnt string
	unmount      func()
	fs           *FS
	mounted      bool
}

// newLayer mounts a layer served by this test process.
func newLayer(t *testing.T) *layer {
	t.Helper()
	l := unmounted(t)
	l.mount()
	t.Cleanup(func() {
		if l.mounted {
			l.powerLoss()
		}
	})
	return l
}

// unmounted is a layer's directories, not mounted yet.
func unmounted(t *testing.T) *layer {
	t.Helper()
	requireFUSE(t)
	dir := t.TempDir()
	l := &layer{t: t, backing: filepath.Join(dir, "durable"), mnt: filepath.Join(dir, "data")}
	for _, d := range []string{l.backing, l.mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func (l *layer) mount() {
	l.t.Helper()
	fs, err := New(l.backing)
	if err != nil {
		l.t.Fatal(err)
	}
	srv, err := Mount(fs, l.mnt)
	if err != nil {
		l.t.Fatal(err)
	}
	l.fs, l.mounted = fs, true
	l.unmount = func() {
		if err := srv.Unmount(); err != nil {
			l.t.Fatalf("unmount: %v", err)
		}
		srv.Wait()
		fs.closeAll()
	}
}

// powerLoss throws the layer's memory away and mounts the backing
// directory again: only what was durable is left.
func (l *layer) powerLoss() {
	l.t.Helper()
	l.unmount()
	l.mounted = false
}

func (l *layer) restart() {
	l.t.Helper()
	l.powerLoss()
	l.mount()
}

func (l *layer) path(name string) string { return filepath.Join(l.mnt, name) }

func (l *layer) write(name, data string, flag int) *os.File {
	l.t.Helper()
	f, err := os.OpenFile(l.path(name), os.O_CREATE|os.O_WRONLY|flag, 0o644)
	if err != nil {
		l.t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		l.t.Fatal(err)
	}
	return f
}

// want checks a file's content through the mount; "<absent>" for none.
func (l *layer) want(name, content string) {
	l.t.Helper()
	got, err := os.ReadFile(l.path(name))
	if os.IsNotExist(err) {
		if content != absent {
			l.t.Errorf("%s is missing, want %q", name, content)
		}
		return
	}
	if err != nil {
		l.t.Fatal(err)
	}
	if string(got) != content {
		l.t.Errorf("%s holds %q, want %q", name, got, content)
	}
}

const absent = "<absent>"

func mustClose(t *testing.T, f *os.File) {
	t.Helper()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func mustSync(t *testing.T, f *os.File) {
	t.Helper()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

func syncPath(t *testing.T, p string) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, f)
	mustClose(t, f)
}

// TestFsyncedSurvives: written and fsynced survives; written after the
// fsync does not.
func TestFsyncedSurvives(t *testing.T) {
	l := newLayer(t)
	f := l.write("a", "durable", 0)
	mustSync(t, f)
	if _, err := f.WriteString(" and not"); err != nil {
		t.Fatal(err)
	}
	mustClose(t, f)
	l.want("a", "durable and not")
	l.restart()
	l.want("a", "durable")
}

// TestUnsyncedLost: a file written and never fsynced, nor anything after
// it, is gone, name and all.
func TestUnsyncedLost(t *testing.T) {
	l := newLayer(t)
	if err := os.Mkdir(l.path("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustClose(t, l.write("dir/b", "never synced", 0))
	l.want("dir/b", "never synced")
	l.restart()
	l.want("dir/b", absent)
	if _, err := os.Stat(l.path("dir")); !os.IsNotExist(err) {
		t.Errorf("dir survives without an fsync: %v", err)
	}
}

// TestMetadataCommittedByAnyFsync: an fsync commits every earlier
// namespace change, as ext4's journal does: a file created before it
// survives, but empty, since its own content was never fsynced.
func TestMetadataCommittedByAnyFsync(t *testing.T) {
	l := newLayer(t)
	mustClose(t, l.write("early", "content", 0))
	f := l.write("other", "x", 0)
	mustSync(t, f)
	mustClose(t, f)
	mustClose(t, l.write("late", "y", 0))
	l.restart()
	l.want("early", "")
	l.want("other", "x")
	l.want("late", absent)
}

// TestRename: the checkpoint pattern (write a temporary file, fsync it,
// rename it over the old one, fsync the directory) is durable only once the
// directory is fsynced.
func TestRename(t *testing.T) {
	l := newLayer(t)
	f := l.write("ckpt", "v1", 0)
	mustSync(t, f)
	mustClose(t, f)

	f = l.write("ckpt.tmp", "v2", 0)
	mustSync(t, f)
	mustClose(t, f)
	if err := os.Rename(l.path("ckpt.tmp"), l.path("ckpt")); err != nil {
		t.Fatal(err)
	}
	l.want("ckpt", "v2")
	l.want("ckpt.tmp", absent)
	l.restart()
	l.want("ckpt", "v1")
	l.want("ckpt.tmp", "v2")

	if err := os.Rename(l.path("ckpt.tmp"), l.path("ckpt")); err != nil {
		t.Fatal(err)
	}
	syncPath(t, l.mnt)
	l.restart()
	l.want("ckpt", "v2")
	l.want("ckpt.tmp", absent)

	// A directory renamed with files in it, as Kafka marks a partition
	// for deletion.
	if err := os.MkdirAll(l.path("t-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	f = l.write("t-0/seg", "records", 0)
	mustSync(t, f)
	mustClose(t, f)
	if err := os.Rename(l.path("t-0"), l.path("t-0.delete")); err != nil {
		t.Fatal(err)
	}
	l.want("t-0.delete/seg", "records")
	syncPath(t, l.mnt)
	l.restart()
	l.want("t-0/seg", absent)
	l.want("t-0.delete/seg", "records")

	// A file created in a directory and the directory renamed before
	// anything is fsynced: one fsync commits both, and the directory's
	// old path is gone when the commit syncs the directories it changed
	// (this failed every fsync of the layer with ENOENT, which a broker
	// takes for a failed log directory).
	if err := os.MkdirAll(l.path("u-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	f = l.write("u-0/seg", "more", 0)
	mustClose(t, f)
	if err := os.Rename(l.path("u-0"), l.path("u-0.delete")); err != nil {
		t.Fatal(err)
	}
	syncPath(t, l.mnt)
	f = l.write("other", "x", 0)
	mustSync(t, f)
	mustClose(t, f)
	l.restart()
	l.want("u-0.delete/seg", "")
	l.want("other", "x")

	// RENAME_NOREPLACE refuses an existing target.
	if err := unix.Renameat2(unix.AT_FDCWD, l.path("ckpt"), unix.AT_FDCWD, l.path("t-0.delete/seg"), unix.RENAME_NOREPLACE); err != syscall.EEXIST {
		t.Errorf("rename with RENAME_NOREPLACE over an existing file: %v, want EEXIST", err)
	}
}

// TestUnlink: a removal is undone by a power loss until something is
// fsynced after it.
func TestUnlink(t *testing.T) {
	l := newLayer(t)
	f := l.write("seg", "old", 0)
	mustSync(t, f)
	mustClose(t, f)
	if err := os.Remove(l.path("seg")); err != nil {
		t.Fatal(err)
	}
	l.want("seg", absent)
	l.restart()
	l.want("seg", "old")
	if err := os.Remove(l.path("seg")); err != nil {
		t.Fatal(err)
	}
	syncPath(t, l.mnt)
	l.restart()
	l.want("seg", absent)
}

// TestTruncate: a truncation is metadata (durable at the next fsync of
// anything); bytes past it read as zeros when the file grows again, also
// before the truncation is durable.
func TestTruncate(t *testing.T) {
	l := newLayer(t)
	f := l.write("log", "0123456789", 0)
	mustSync(t, f)
	if err := f.Truncate(4); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(8); err != nil {
		t.Fatal(err)
	}
	mustClose(t, f)
	l.want("log", "0123\x00\x00\x00\x00")
	l.restart()
	l.want("log", "0123456789")

	f, err := os.OpenFile(l.path("log"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(6); err != nil {
		t.Fatal(err)
	}
	mustClose(t, f)
	syncPath(t, l.mnt) // commits the truncation, not an unsynced write
	l.restart()
	l.want("log", "012345")

	// Preallocation as Kafka's index files do it: set a length, write a
	// little, fsync, trim.
	f, err = os.OpenFile(l.path("idx"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(10 << 20); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("entry"), 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(5); err != nil {
		t.Fatal(err)
	}
	mustSync(t, f)
	mustClose(t, f)
	l.restart()
	l.want("idx", "entry")
}

// TestMmap: stores to a shared mapping are durable after msync and lost
// without it, as Kafka's offset and time indexes are.
func TestMmap(t *testing.T) {
	// The pages are touched by this process, so the layer runs in another:
	// served in-process, a page fault on the mapping can wait on a FUSE
	// read that the server's goroutines never answer while the Go runtime
	// stops the world for the faulting thread.
	l := unmounted(t)
	stop := serveApart(t, l.backing, l.mnt)
	const size = 3 * 4096
	for _, sync := range []bool{true, false} {
		name := map[bool]string{true: "synced.index", false: "unsynced.index"}[sync]
		f, err := os.OpenFile(l.path(name), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		mustSync(t, f)
		m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			t.Fatal(err)
		}
		mustClose(t, f) // Kafka closes the file and keeps the mapping
		copy(m[4096+10:], "mapped")
		if sync {
			if err := unix.Msync(m, unix.MS_SYNC); err != nil {
				t.Fatal(err)
			}
		}
		if err := unix.Munmap(m); err != nil {
			t.Fatal(err)
		}
		want := make([]byte, size)
		copy(want[4096+10:], "mapped")
		l.want(name, string(want))
	}
	stop()
	stop = serveApart(t, l.backing, l.mnt)
	defer stop()
	want := make([]byte, size)
	l.want("unsynced.index", string(want))
	copy(want[4096+10:], "mapped")
	l.want("synced.index", string(want))
}

// serveApart serves the layer over backing at mnt in a process of its own
// (this test binary, which TestMain hands over to Serve), as kafkabook
// does. stop ends it with SIGTERM, which unmounts it keeping only what is
// durable; the test's cleanup does so too when stop was not called.
func serveApart(t *testing.T, backing, mnt string) (stop func()) {
	t.Helper()
	dir := t.TempDir()
	cmd, err := Command(backing, mnt, filepath.Join(dir, "stats.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Launch(cmd, filepath.Join(dir, "powerfs.log"), (*exec.Cmd).Start, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Errorf("the layer's process: %v", err)
				syscall.Unmount(mnt, syscall.MNT_DETACH)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// TestRandomWrites compares the layer with a plain file under random
// writes, appends and truncations across chunk boundaries, before and
// after an fsync and a power loss.
func TestRandomWrites(t *testing.T) {
	l := newLayer(t)
	ref, err := os.Create(filepath.Join(t.TempDir(), "ref"))
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	f, err := os.OpenFile(l.path("f"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(step int) {
		t.Helper()
		a, err1 := os.ReadFile(l.path("f"))
		b, err2 := os.ReadFile(ref.Name())
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("step %d: the layer holds %d bytes that differ from the reference's %d", step, len(a), len(b))
		}
	}
	for step := range 400 {
		size, _ := ref.Seek(0, 2)
		switch r := rng.IntN(10); {
		case r < 6:
			buf := make([]byte, rng.IntN(3*chunkSize))
			for i := range buf {
				buf[i] = byte(rng.Uint32())
			}
			off := rng.Int64N(size + chunkSize + 1)
			if _, err := f.WriteAt(buf, off); err != nil {
				t.Fatal(err)
			}
			ref.WriteAt(buf, off)
		case r < 8:
			n := rng.Int64N(size + 2*chunkSize + 1)
			if err := f.Truncate(n); err != nil {
				t.Fatal(err)
			}
			ref.Truncate(n)
		case r < 9:
			mustSync(t, f)
		default:
			check(step)
		}
	}
	check(400)
	mustSync(t, f)
	durable, _ := os.ReadFile(ref.Name())
	mustClose(t, f)
	l.restart()
	got, err := os.ReadFile(l.path("f"))
	if err != nil || !bytes.Equal(got, durable) {
		t.Fatalf("after a power loss: %d bytes (%v), want the %d fsynced", len(got), err, len(durable))
	}
}

// startProcess mounts a layer in a process of its own, started as
// kafkabook starts it, over a backing directory of the test's: it returns
// the process, the backing directory, the mount point, the stats file the
// layer answers through and its log. The test's cleanup kills the process
// and detaches the mount.
func startProcess(t *testing.T) (cmd *exec.Cmd, backing, mnt, stats, logFile string) {
	t.Helper()
	requireFUSE(t)
	dir := t.TempDir()
	backing, mnt, stats = filepath.Join(dir, "durable"), filepath.Join(dir, "data"), filepath.Join(dir, "stats.json")
	for _, d := range []string{backing, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd, err := Command(backing, mnt, stats)
	if err != nil {
		t.Fatal(err)
	}
	logFile = filepath.Join(dir, "powerfs.log")
	if err := Launch(cmd, logFile, (*exec.Cmd).Start, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		syscall.Unmount(mnt, syscall.MNT_DETACH)
	})
	return cmd, backing, mnt, stats, logFile
}

// TestProcess runs the layer as kafkabook does, in a process of its own,
// and cuts its power: SIGKILL, then the dead mount is detached. Only the
// fsynced file is in the backing directory, and the layer said beforehand
// what it would drop.
func TestProcess(t *testing.T) {
	cmd, backing, mnt, stats, logFile := startProcess(t)
	f, err := os.Create(filepath.Join(mnt, "synced"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("kept")
	mustSync(t, f)
	mustClose(t, f)
	if err := os.WriteFile(filepath.Join(mnt, "unsynced"), []byte("dropped!"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := AskPending(cmd.Process.Pid, stats, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if s != (Stats{Bytes: 8, Files: 1, Metadata: 1}) {
		t.Errorf("pending %+v, want 8 bytes in 1 file and 1 metadata change", s)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if err := syscall.Unmount(mnt, syscall.MNT_DETACH); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(backing)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "synced" {
		t.Errorf("after the power loss the backing directory holds %q, want only synced", names)
	}
	if data, _ := os.ReadFile(filepath.Join(backing, "synced")); string(data) != "kept" {
		t.Errorf("synced holds %q", data)
	}
	logData, _ := os.ReadFile(logFile)
	if !strings.Contains(string(logData), "serving "+backing) {
		t.Errorf("log: %s", logData)
	}
}
