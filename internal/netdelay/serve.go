package netdelay

import (
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/readyline"
)

// The delayer runs as a process of its own inside the node's network
// namespace (a netlink socket binds a queue of the namespace it was
// opened in), started by the backend and recorded in its state like a
// node's JVM. It is the binary that asks for it (kafkabook, or a test),
// started again with serveEnv set: that binary's main (or TestMain) hands
// the process over to the delayer when Serving says so.
const (
	serveEnv = "KAFKABOOK_NETDELAY"
	// Arg0 is the first argument of a delayer's process, so that its
	// command line says what it is: `<binary> netdelay QUEUE DELAY JITTER`.
	Arg0 = "netdelay"
)

// Serving reports whether this process was started by Command to be a
// delayer. Every binary that starts delayers (kafkabook, and the tests of
// packages that delay a cluster's links) begins its main with
//
//	if netdelay.Serving() {
//		os.Exit(netdelay.Serve())
//	}
func Serving() bool {
	return os.Getenv(serveEnv) == "serve" && len(os.Args) == 5 && os.Args[1] == Arg0
}

// Serve is the delayer's process, for a process that Serving says is one:
// it delays the packets of the queue its arguments name until SIGTERM,
// and returns the process's exit code.
func Serve() int {
	if !Serving() {
		fmt.Fprintf(os.Stderr, "netdelay: this process was not started as a delayer (want %s=serve and the arguments %s QUEUE DELAY JITTER)\n", serveEnv, Arg0)
		return 2
	}
	num, err1 := strconv.ParseUint(os.Args[2], 10, 16)
	delay, err2 := time.ParseDuration(os.Args[3])
	jitter, err3 := time.ParseDuration(os.Args[4])
	if err1 != nil || err2 != nil || err3 != nil || delay < 0 || jitter < 0 {
		fmt.Fprintf(os.Stderr, "netdelay: bad arguments %q: want QUEUE (0 to 65535) DELAY JITTER (durations, 0 or more)\n", os.Args[2:])
		return 2
	}
	return serve(uint16(num), delay, jitter)
}

// Command is the delayer's process for queue num: every packet queued
// there leaves delay plus a uniform 0..jitter after it was queued. Start
// it with Launch, inside the network namespace whose queue it serves.
func Command(num uint16, delay, jitter time.Duration) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, Args(num, delay, jitter)...)
	cmd.Env = append(os.Environ(), ServeEnv)
	return cmd, nil
}

// Args are the delayer's arguments after the binary's path, and ServeEnv
// the variable its environment adds: what Command runs, for a backend
// that starts the delayer elsewhere (in a pod).
func Args(num uint16, delay, jitter time.Duration) []string {
	return []string{Arg0, strconv.Itoa(int(num)), delay.String(), jitter.String()}
}

// ServeEnv is the environment entry that makes the binary a delayer.
const ServeEnv = serveEnv + "=serve"

// Is reports whether a process's arguments (from /proc/PID/cmdline,
// split at NULs) are a delayer's.
func Is(args []string) bool { return len(args) > 1 && args[1] == Arg0 }

// Launch starts cmd (from Command) with start, its output appended to
// logFile, and waits until it has bound its queue: from then on every
// packet sent to the queue is delayed.
func Launch(cmd *exec.Cmd, logFile string, start func(*exec.Cmd) error, timeout time.Duration) error {
	return readyline.Launch(cmd, logFile, start, timeout, "the link delayer", "bind its queue")
}

// serve binds the queue, says so on fd 3, and delays its packets until
// SIGTERM (or SIGINT): then it sends every packet it holds at once, and
// what still comes for drain (the rule that queues packets is removed
// before the signal, so little does) as it comes, and exits. The packets
// a delayer holds die with it, so it is stopped, not killed.
func serve(num uint16, delay, jitter time.Duration) int {
	logger := log.New(os.Stderr, "netdelay: ", log.LstdFlags|log.LUTC)
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	ready := os.NewFile(3, "ready")
	q, err := openQueue(num)
	if err != nil {
		logger.Print(err)
		fmt.Fprintf(ready, "%v\n", err)
		return 1
	}
	out, err := openSender()
	if err != nil {
		logger.Print(err)
		fmt.Fprintf(ready, "%v\n", err)
		return 1
	}
	d := newDelayer(q, out, delay, jitter, uint64(time.Now().UnixNano()))
	failed := make(chan error, 1)
	done := make(chan struct{})
	go func() { failed <- d.read() }()
	go d.release(done)
	logger.Printf("delaying the packets of queue %d by %v + 0..%v (pid %d)", num, delay, jitter, os.Getpid())
	fmt.Fprintln(ready, "ok")
	ready.Close()

	report := func(what string) {
		st := d.stats()
		logger.Printf("%s; %d packets delayed, at most %d held at once", what, st.Sent, st.Held)
		if st.Failed > 0 {
			logger.Printf("%d packets could not be sent on, the last because: %v", st.Failed, st.LastErr)
		}
	}
	select {
	case err := <-failed:
		close(done)
		d.stop()
		report(fmt.Sprintf("reading the queue failed (%v); stopped", err))
		return 1
	case s := <-sig:
		close(done)
		d.stop()
		time.Sleep(drain)
		report(fmt.Sprintf("%v: stopped", s))
		return 0
	}
}

// drain is how long a stopped delayer still accepts packets the kernel
// queued before the rule went.
const drain = 50 * time.Millisecond
