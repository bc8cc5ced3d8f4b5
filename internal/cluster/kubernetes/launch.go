package kubernetes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/internal/relay"
)

// launcher starts client processes in the client pod.
type launcher struct{ c *clients }

// launcher is where driver processes and consumer group members start:
// in the client pod.
func (c *clients) launcher(ctx context.Context) (launch.Launcher, error) {
	if err := c.prepare(ctx); err != nil {
		return nil, err
	}
	return launcher{c}, nil
}

// Retrieve copies a file the processes wrote in the client pod (a
// consumer group's SQLite store) back to the same path on this machine,
// once they have ended; a path that does not exist in the pod is left
// alone (nothing wrote it).
func (l launcher) Retrieve(ctx context.Context, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if _, err := l.c.api.run(ctx, l.c.pod, l.c.container, "test", "-e", abs); err != nil {
		if exitCode(err) == 1 {
			return nil
		}
		return err
	}
	return l.c.copyOut(ctx, abs)
}

// Start copies cmd.Files into the client pod and starts cmd there under
// this binary's `relay run`, which makes it the leader of a process group
// of its own, says its pid before it runs and how it ended after: the
// exec's own status cannot tell a SIGKILL from exit 137.
func (l launcher) Start(ctx context.Context, cmd launch.Command) (launch.Process, error) {
	c := l.c
	if len(cmd.Argv) == 0 {
		return nil, fmt.Errorf("kubernetes: starting a client process: empty command")
	}
	if err := c.prepare(ctx); err != nil {
		return nil, err
	}
	// Paths resolve against this machine's working directory, so that
	// they name the same place in the pod.
	files, err := absPaths(cmd.Files)
	if err != nil {
		return nil, err
	}
	if err := c.copyIn(ctx, files...); err != nil {
		return nil, err
	}
	argv, err := c.venvArgv(ctx, cmd.Argv, files)
	if err != nil {
		return nil, err
	}
	if len(cmd.Writes) > 0 {
		writes, err := absPaths(cmd.Writes)
		if err != nil {
			return nil, err
		}
		mkdir := []string{"mkdir", "-p"}
		for _, w := range writes {
			mkdir = append(mkdir, filepath.Dir(w))
		}
		if _, err := c.api.run(ctx, c.pod, c.container, mkdir...); err != nil {
			return nil, fmt.Errorf("kubernetes: making the directories %s writes in the client pod: %w", cmd.Argv[0], err)
		}
	}
	spec, _ := json.Marshal(relay.RunSpec{Argv: argv, Env: cmd.Env}) // plain data
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	p := &podProcess{
		c: c, argv: cmd.Argv, stdin: stdinW, stdout: stdoutR, done: make(chan struct{}),
		status: &runStderr{pass: cmd.Stderr, started: make(chan struct{})},
	}
	sctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() {
		p.err = c.api.stream(sctx, c.pod, c.container, []string{c.exe, relay.Subcommand, "run", string(spec)}, quietReader{stdinR}, quietWriter{stdoutW}, p.status)
		p.status.flush()
		stdoutW.Close() // everything the process wrote has been copied
		stdinR.CloseWithError(io.ErrClosedPipe)
		close(p.done)
	}()
	select {
	case <-p.status.started:
		p.pid = p.status.pidValue()
		return p, nil
	case <-p.done:
		cancel()
		return nil, fmt.Errorf("kubernetes: starting %s in the client pod %s: %s", cmd.Argv[0], c.pod, p.failure())
	case <-ctx.Done():
		cancel()
		<-p.done
		return nil, fmt.Errorf("kubernetes: starting %s in the client pod %s: %w", cmd.Argv[0], c.pod, ctx.Err())
	}
}

// podProcess is a process in the client pod.
type podProcess struct {
	c      *clients
	argv   []string
	pid    int
	stdin  *io.PipeWriter
	stdout *io.PipeReader
	status *runStderr
	cancel context.CancelFunc
	done   chan struct{}
	err    error // the exec's, once done is closed
}

func (p *podProcess) Pid() int              { return p.pid }
func (p *podProcess) Stdin() io.WriteCloser { return p.stdin }
func (p *podProcess) Stdout() io.Reader     { return p.stdout }

// Signal sends sig to the process's group, from an exec in the pod
// (launch.SignalGroup there). Signal 0 asks the pod even after the
// process ended here, so that a check that it is gone is the pod's word.
func (p *podProcess) Signal(sig syscall.Signal) error {
	select {
	case <-p.done:
		if sig != 0 {
			return fmt.Errorf("kubernetes: signal %v to %s: %w", sig, p.argv[0], os.ErrProcessDone)
		}
	default:
	}
	_, err := p.c.api.run(context.Background(), p.c.pod, p.c.container, p.c.exe, relay.Subcommand, "kill", strconv.Itoa(int(sig)), strconv.Itoa(p.pid))
	if exitCode(err) == relay.NoProcess {
		return fmt.Errorf("kubernetes: process group %d in the client pod: %w", p.pid, syscall.ESRCH)
	}
	if err != nil {
		return fmt.Errorf("kubernetes: signal %v to process group %d in the client pod: %w", sig, p.pid, err)
	}
	return nil
}

// Wait waits for the process to end and says how it ended; an end other
// than exit 0 is an error too, as os/exec's Wait says it.
func (p *podProcess) Wait() (launch.Exit, error) {
	<-p.done
	p.cancel()
	if e, ok := p.status.exit(); ok {
		switch {
		case e.Signal != 0:
			return e, fmt.Errorf("signal: %v", e.Signal)
		case e.Code != 0:
			return e, fmt.Errorf("exit status %d", e.Code)
		}
		return e, nil
	}
	return launch.Exit{}, fmt.Errorf("kubernetes: %s in the client pod %s: no exit status came back: %s", p.argv[0], p.c.pod, p.failure())
}

// Close ends the exec if it still runs: the process's streams close with
// it.
func (p *podProcess) Close() error {
	p.stdin.Close()
	p.cancel()
	return nil
}

// absPaths are paths made absolute against this machine's working
// directory.
func absPaths(paths []string) ([]string, error) {
	out := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

// failure is why the exec ended without a process or a status.
func (p *podProcess) failure() string {
	msg := strings.TrimSpace(p.status.tail.String())
	if p.err != nil {
		msg = strings.TrimSpace(p.err.Error() + ": " + msg)
	}
	return msg
}

// runStderr reads `relay run`'s standard error: the process's own lines go
// to pass (and the last few are kept for messages), the relay's pid and
// exit lines are taken out.
type runStderr struct {
	pass    io.Writer
	started chan struct{}

	mu     sync.Mutex
	line   []byte // an unfinished line
	blank  bool   // an empty line held back: the relay writes one before its exit line
	pid    int
	code   int
	signal int
	exited bool
	tail   tailLines
}

func (r *runStderr) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			r.line = append(r.line, b...)
			break
		}
		r.line = append(r.line, b[:i]...)
		r.take(string(r.line))
		r.line = r.line[:0]
		b = b[i+1:]
	}
	return n, nil
}

// take handles one complete line.
func (r *runStderr) take(line string) {
	switch {
	case strings.HasPrefix(line, relay.Pid) && r.pid == 0:
		r.pid, _ = strconv.Atoi(strings.TrimPrefix(line, relay.Pid))
		close(r.started)
		return
	case strings.HasPrefix(line, relay.Exit):
		r.blank = false
		f := strings.Fields(strings.TrimPrefix(line, relay.Exit))
		if len(f) == 2 {
			v, _ := strconv.Atoi(f[1])
			r.exited = true
			if f[0] == "signal" {
				r.signal = v
			} else {
				r.code = v
			}
		}
		return
	case line == "" && !r.blank:
		r.blank = true
		return
	}
	if r.blank {
		r.out("")
		r.blank = false
	}
	r.out(line)
}

func (r *runStderr) out(line string) {
	r.tail.add(line)
	if r.pass != nil {
		r.pass.Write([]byte(line + "\n"))
	}
}

// flush passes on what is left once the exec has ended.
func (r *runStderr) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.blank {
		r.out("")
		r.blank = false
	}
	if len(r.line) > 0 {
		line := string(r.line)
		r.line = nil
		r.tail.add(line)
		if r.pass != nil {
			r.pass.Write([]byte(line))
		}
	}
}

func (r *runStderr) pidValue() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pid
}

func (r *runStderr) exit() (launch.Exit, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return launch.Exit{Code: r.code, Signal: syscall.Signal(r.signal)}, r.exited
}

// tailLines keeps the last few lines written, for messages.
type tailLines struct{ lines []string }

func (t *tailLines) add(line string) {
	t.lines = append(t.lines, line)
	if len(t.lines) > 8 {
		t.lines = t.lines[1:]
	}
}

func (t *tailLines) String() string { return strings.Join(t.lines, "\n") }

// Launcher starts driver processes and consumer group members in the
// cluster's client pod.
func (b *Backend) Launcher(ctx context.Context) (launch.Launcher, error) {
	a, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	c, err := newClients(a, b.clientPod())
	if err != nil {
		return nil, err
	}
	return c.launcher(ctx)
}
