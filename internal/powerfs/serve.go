package powerfs

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/kafkabook/kafkabook/internal/readyline"
)

// FSType is the type a mount of this file system has in /proc/self/mountinfo.
const FSType = "fuse.kafkabook-powerfs"

// Mount serves fs at mountpoint until the server is unmounted. It returns
// once the mount answers.
func Mount(fs *FS, mountpoint string) (*fuse.Server, error) {
	srv, err := fuse.NewServer(fs, mountpoint, &fuse.MountOptions{
		FsName:             "powerfs:" + fs.backing,
		Name:               strings.TrimPrefix(FSType, "fuse."),
		DisableXAttrs:      true,
		DisableReadDirPlus: true,
		MaxWrite:           1 << 20,
		MaxBackground:      64,
	})
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", mountpoint, err)
	}
	go srv.Serve()
	if err := srv.WaitMount(); err != nil {
		srv.Unmount()
		return nil, fmt.Errorf("mount %s: %w", mountpoint, err)
	}
	return srv, nil
}

// Missing says what this machine lacks to run the layer, "" when nothing:
// root, the FUSE device, and fusermount3 (Debian's fuse3 package).
func Missing() string {
	var miss []string
	if os.Geteuid() != 0 {
		miss = append(miss, "root")
	}
	if fi, err := os.Stat("/dev/fuse"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		miss = append(miss, "/dev/fuse (the kernel's FUSE device)")
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		miss = append(miss, "fusermount3 (Debian's fuse3 package: apt-get install fuse3)")
	}
	return strings.Join(miss, ", ")
}

// The layer runs as a process of its own, so that it outlives a kafkabook
// that started a cluster to keep and dies, with what it held in memory,
// when the node loses power. It is the binary that asks for it (kafkabook,
// or a test), started again with serveEnv set: that binary's main (or
// TestMain) hands the process over to the layer when Serving says so.
const (
	serveEnv = "KAFKABOOK_POWERFS"
	// Arg0 is the first argument of a layer's process, so that its command
	// line says what it is: `<binary> powerfs BACKING MOUNTPOINT STATS`.
	Arg0 = "powerfs"
)

// Serving reports whether this process was started by Command to be a
// layer. Every binary that starts layers (kafkabook, and the tests of
// packages that start clusters with power loss) begins its main with
//
//	if powerfs.Serving() {
//		os.Exit(powerfs.Serve())
//	}
func Serving() bool {
	return os.Getenv(serveEnv) == "serve" && len(os.Args) == 5 && os.Args[1] == Arg0
}

// Serve is the layer's process, for a process that Serving says is one:
// it serves the mount its arguments name until unmounted or told to stop,
// and returns the process's exit code.
func Serve() int {
	if !Serving() {
		fmt.Fprintf(os.Stderr, "powerfs: this process was not started as a layer (want %s=serve and the arguments %s BACKING MOUNTPOINT STATS)\n", serveEnv, Arg0)
		return 2
	}
	return serve(os.Args[2], os.Args[3], os.Args[4])
}

// Command is the layer's process for backing mounted at mountpoint. It
// writes what it would lose to stats when sent SIGUSR1. Start it with
// Launch.
func Command(backing, mountpoint, stats string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, Arg0, backing, mountpoint, stats)
	cmd.Env = append(os.Environ(), serveEnv+"=serve")
	return cmd, nil
}

// Launch starts cmd (from Command) with start, its output appended to
// logFile, and waits until its mount answers.
func Launch(cmd *exec.Cmd, logFile string, start func(*exec.Cmd) error, timeout time.Duration) error {
	return readyline.Launch(cmd, logFile, start, timeout, "the power-loss layer", "mount")
}

// serve is the layer's process: it mounts, says so on fd 3, and serves
// until it is unmounted or told to stop (SIGTERM: unmount, keeping only
// what is durable). SIGUSR1 writes Pending, the fault in force and its
// hits to the stats file; SIGUSR2 puts the fault of FaultFile(stats) in
// force, then does the same.
func serve(backing, mountpoint, stats string) int {
	logger := log.New(os.Stderr, "powerfs: ", log.LstdFlags|log.LUTC)
	// Catch the signals before saying "ok": SIGUSR1 may come at once, and
	// its default action ends the process.
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGTERM, syscall.SIGINT)
	ready := os.NewFile(3, "ready")
	fail := func(err error) int {
		logger.Print(err)
		fmt.Fprintf(ready, "%v\n", err)
		return 1
	}
	fs, err := New(backing)
	if err != nil {
		return fail(err)
	}
	srv, err := Mount(fs, mountpoint)
	if err != nil {
		return fail(err)
	}
	logger.Printf("serving %s at %s (pid %d)", backing, mountpoint, os.Getpid())
	fmt.Fprintln(ready, "ok")
	ready.Close()

	done := make(chan struct{})
	go func() { srv.Wait(); close(done) }()
	for {
		select {
		case <-done:
			logger.Printf("unmounted")
			return 0
		case s := <-sig:
			if s == syscall.SIGUSR2 {
				f, err := readFault(FaultFile(stats))
				if err != nil {
					logger.Printf("fault: %v", err)
					continue
				}
				fs.SetFault(f)
				_, hits := fs.FaultNow()
				logger.Printf("disk fault: the disk is %s; its files take %d bytes, its size is %d (0: none)", f, hits.Used, hits.Limit)
			}
			if s == syscall.SIGUSR1 || s == syscall.SIGUSR2 {
				if err := writeStats(stats, fs); err != nil {
					logger.Printf("stats: %v", err)
				}
				continue
			}
			logger.Printf("%v: unmounting; not durable and dropped: %+v", s, fs.Pending())
			if err := srv.Unmount(); err != nil {
				logger.Printf("unmount: %v", err)
				return 1
			}
		}
	}
}

// statsRecord is one answer to SIGUSR1 or SIGUSR2.
type statsRecord struct {
	Stats
	Fault Fault     `json:"fault"`
	Hits  Hits      `json:"hits"`
	At    time.Time `json:"at"`
}

func writeStats(path string, fs *FS) error {
	r := statsRecord{Stats: fs.Pending(), At: time.Now()}
	r.Fault, r.Hits = fs.FaultNow()
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// AskPending asks the layer's process pid what a power loss would throw
// away now, through its stats file.
func AskPending(pid int, stats string, timeout time.Duration) (Stats, error) {
	r, err := ask(pid, syscall.SIGUSR1, stats, timeout)
	return r.Stats, err
}

// AskFault asks the layer's process pid which fault is in force and what
// it did so far.
func AskFault(pid int, stats string, timeout time.Duration) (Fault, Hits, error) {
	r, err := ask(pid, syscall.SIGUSR1, stats, timeout)
	return r.Fault, r.Hits, err
}

// PutFault puts f in force in the layer's process pid (the zero Fault
// heals the disk) and returns once the layer says it is.
func PutFault(pid int, stats string, f Fault, timeout time.Duration) error {
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if err := os.WriteFile(FaultFile(stats), data, 0o644); err != nil {
		return err
	}
	r, err := ask(pid, syscall.SIGUSR2, stats, timeout)
	if err == nil && r.Fault != f {
		err = fmt.Errorf("the power-loss layer (pid %d) has the disk %s, not %s", pid, r.Fault, f)
	}
	return err
}

// FaultFile is where PutFault leaves the fault for the layer whose stats
// file is stats.
func FaultFile(stats string) string {
	return filepath.Join(filepath.Dir(stats), "powerfs-fault.json")
}

func readFault(path string) (Fault, error) {
	var f Fault
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &f)
	}
	return f, err
}

// ask sends sig to the layer's process pid and waits for the stats record
// it writes after it.
func ask(pid int, sig syscall.Signal, stats string, timeout time.Duration) (statsRecord, error) {
	asked := time.Now()
	if err := syscall.Kill(pid, sig); err != nil {
		return statsRecord{}, err
	}
	deadline := asked.Add(timeout)
	for {
		data, err := os.ReadFile(stats)
		if err == nil {
			var r statsRecord
			if err := json.Unmarshal(data, &r); err == nil && !r.At.Before(asked) {
				return r, nil
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return statsRecord{}, err
		}
		if time.Now().After(deadline) {
			return statsRecord{}, fmt.Errorf("the power-loss layer (pid %d) did not answer within %v", pid, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
