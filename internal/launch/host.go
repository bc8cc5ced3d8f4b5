package launch

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// Host starts commands on this machine, each the leader of a process
// group of its own: Ctrl-C on the terminal reaches kafkabook, which stops
// its clients itself, and a signal reaches a JVM's or Python's children
// too.
var Host Launcher = host{}

type host struct{}

func (host) Start(_ context.Context, c Command) (Process, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("launch: no command")
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Env = c.Env
	cmd.Stderr = c.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// A pipe of our own, not StdoutPipe: Wait closes StdoutPipe's read end
	// when the process exits, which loses the lines a crashed client
	// wrote just before and that were not read yet. This read end ends at
	// EOF; the reader closes it.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		stdin.Close()
		return nil, err
	}
	return &hostProcess{cmd: cmd, stdin: stdin, stdout: r}, nil
}

// hostProcess is a command Host started.
type hostProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
}

func (p *hostProcess) Pid() int              { return p.cmd.Process.Pid }
func (p *hostProcess) Stdin() io.WriteCloser { return p.stdin }
func (p *hostProcess) Stdout() io.Reader     { return p.stdout }

// Signal signals the whole process group (SignalGroup).
func (p *hostProcess) Signal(sig syscall.Signal) error {
	return SignalGroup(p.cmd.Process.Pid, sig)
}

// Wait reaps the process. Its stdout stays readable to EOF, until Close.
func (p *hostProcess) Wait() (Exit, error) {
	err := p.cmd.Wait()
	p.stdin.Close()
	ws, _ := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return Exit{Signal: ws.Signal()}, err
	}
	return Exit{Code: ws.ExitStatus()}, err
}

// Close releases the read end of the process's stdout.
func (p *hostProcess) Close() error {
	p.stdin.Close()
	return p.stdout.Close()
}
