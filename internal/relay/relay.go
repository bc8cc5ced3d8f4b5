// Package relay is the kafkabook binary's hidden helper where a cluster's
// clients run elsewhere than on this machine (in a Kubernetes pod): it
// relays one TCP connection over its standard streams, runs one client
// process and reports how it ended, or signals a process group. The
// Kubernetes backend copies the binary into its client pod and execs it
// there, so that kafkabook's clients meet the network a pod meets.
package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/launch"
)

// Subcommand is the hidden command line word that makes a kafkabook
// binary (or a test binary that forwards it) a relay:
//
//	kafkabook relay HOST:PORT        one TCP connection over stdin/stdout
//	kafkabook relay run SPEC-JSON    a process (RunSpec), its pid and end on stderr
//	kafkabook relay kill SIG PGID    a signal to a process group (launch.SignalGroup)
const Subcommand = "relay"

// Lines the relay writes on standard error for the side that execs it, each
// alone on a line. Connected follows a successful dial; Pid precedes
// anything a run's process writes and Exit follows everything.
const (
	Connected = "kafkabook-relay connected"
	Pid       = "kafkabook-relay pid "  // then the process's pid
	Exit      = "kafkabook-relay exit " // then "code N" or "signal N"
	// DialError precedes a failed dial's message, with the kind of
	// failure (see dialErrorKind), so that the dialling side can give its
	// Kafka client the error a dial of its own would have given: franz-go
	// retries a refused or timed-out dial and not an unknown host.
	DialError = "kafkabook-relay dial-error "
	// NoProcess is relay kill's exit status when the process group does
	// not exist (ESRCH), so that the signalling side can tell a process
	// gone from a signal that failed.
	NoProcess = 3
	dialLimit = 10 * time.Second // a dial's own limit; the caller may give up sooner
	usage     = "usage: kafkabook relay HOST:PORT | run SPEC-JSON | kill SIGNAL PGID (started by kafkabook, not by hand)"
)

// RunSpec is the process `relay run` starts.
type RunSpec struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env,omitempty"` // nil: the relay's own
}

// Main runs the relay of args and returns the process's exit code.
func Main(args []string) int {
	switch {
	case len(args) == 1 && args[0] != "run" && args[0] != "kill":
		return connect(args[0], os.Stdin, os.Stdout, os.Stderr)
	case len(args) == 2 && args[0] == "run":
		var spec RunSpec
		if err := json.Unmarshal([]byte(args[1]), &spec); err != nil || len(spec.Argv) == 0 {
			fmt.Fprintf(os.Stderr, "relay run: bad spec %q: %v\n", args[1], err)
			return 2
		}
		return run(spec)
	case len(args) == 3 && args[0] == "kill":
		sig, err1 := strconv.Atoi(args[1])
		pgid, err2 := strconv.Atoi(args[2])
		if err := errors.Join(err1, err2); err != nil || pgid <= 1 {
			fmt.Fprintf(os.Stderr, "relay kill: want a signal number and a process group id above 1: %v\n", err)
			return 2
		}
		if err := launch.SignalGroup(pgid, syscall.Signal(sig)); err != nil {
			fmt.Fprintf(os.Stderr, "relay kill: %v\n", err)
			if errors.Is(err, syscall.ESRCH) {
				return NoProcess
			}
			return 1
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, usage)
	return 2
}

// connect dials addr and copies in to the connection and the connection
// to out until either side closes. It says Connected on errw once the
// connection stands, so that the caller's dial returns only then.
func connect(addr string, in io.Reader, out io.Writer, errw io.Writer) int {
	ctx, cancel := context.WithTimeout(context.Background(), dialLimit)
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	cancel()
	if err != nil {
		fmt.Fprintf(errw, "%s%s\n%v\n", DialError, dialErrorKind(err), err)
		return 1
	}
	defer conn.Close()
	fmt.Fprintln(errw, Connected)
	done := make(chan struct{}, 2)
	go func() { io.Copy(conn, in); done <- struct{}{} }()
	go func() { io.Copy(out, conn); done <- struct{}{} }()
	<-done
	return 0
}

// dialErrorKind names the kind of a dial's failure: "errno N" for an
// error of the system call (connection refused, no route), "timeout",
// "notfound" for a name that does not exist, "dns" for another failure to
// resolve, else "other".
func dialErrorKind(err error) string {
	var dns *net.DNSError
	var errno syscall.Errno
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return "notfound"
	case errors.As(err, &dns) && dns.Timeout():
		return "timeout"
	case errors.As(err, &dns):
		return "dns"
	case errors.As(err, &errno):
		return fmt.Sprintf("errno %d", int(errno))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return "timeout"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	return "other"
}

// run starts spec's process as the leader of a process group of its own,
// with the relay's standard streams, says its pid, waits for it and says
// how it ended: a shell's status cannot tell exit 137 from SIGKILL.
func run(spec RunSpec) int {
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Env = spec.Env
	// The process's stderr goes through a pipe copied only after the pid
	// line, which must come first: a process can write before the relay
	// has said its pid.
	errR, errW, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(os.Stderr, "relay run: %v\n", err)
		return 127
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	errW.Close()
	if err != nil {
		errR.Close()
		fmt.Fprintf(os.Stderr, "relay run: %v\n", err)
		return 127
	}
	fmt.Fprintf(os.Stderr, "%s%d\n", Pid, cmd.Process.Pid)
	copied := make(chan struct{})
	go func() { io.Copy(os.Stderr, errR); close(copied) }()
	cmd.Wait() // the status says it all
	select {
	case <-copied: // everything it wrote, before the exit line
	case <-time.After(time.Second): // a child it left holds the pipe open
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		fmt.Fprintf(os.Stderr, "\n%ssignal %d\n", Exit, int(ws.Signal()))
		return 128 + int(ws.Signal())
	}
	fmt.Fprintf(os.Stderr, "\n%scode %d\n", Exit, ws.ExitStatus())
	return ws.ExitStatus()
}
