// Package launch starts client processes (producer drivers, consumer group
// members, transformers) where the cluster's clients run: on this machine
// for the local and Docker backends, in a pod of the cluster's network for
// the Kubernetes backend. The engine and the drivers see one Process
// either way, so a crash is a real SIGKILL of the client's process and its
// JSON-lines stream is read the same way wherever it runs.
package launch

import (
	"context"
	"io"
	"syscall"
)

// Command is a process to start.
type Command struct {
	Argv []string
	Env  []string // the whole environment; nil inherits this process's where it runs here
	// Files are paths on this machine (files or directories) that the
	// command needs at the same paths where it runs: a driver's jars, its
	// virtual environment, the kafkabook binary. A launcher that runs
	// elsewhere copies them there once.
	Files []string
	// Writes are files the command writes that kafkabook reads once it
	// ended (a consumer group's SQLite store). A launcher that runs
	// elsewhere makes their directories there; Retrieve brings them back.
	Writes []string
	// Stderr receives the process's standard error.
	Stderr io.Writer
}

// Exit is how a process ended.
type Exit struct {
	Code   int            // exit status when it exited
	Signal syscall.Signal // the signal that ended it, 0 when it exited
}

// Process is a started command, leader of a process group of its own.
type Process interface {
	// Pid is the process id where it runs (not necessarily this machine's).
	Pid() int
	// Stdin is the process's standard input; closing it tells a driver to
	// finish.
	Stdin() io.WriteCloser
	// Stdout is the process's standard output; it ends at EOF after the
	// process exits, having delivered everything the process wrote.
	Stdout() io.Reader
	// Signal sends sig to the process group where it runs, as
	// SignalGroup does there: SIGSTOP and SIGCONT return once the process
	// shows the state asked for; signal 0 fails with an error wrapping
	// syscall.ESRCH once the group is gone.
	Signal(sig syscall.Signal) error
	// Wait waits for the process to end; it is called once. Its error is
	// non-nil unless the process exited 0.
	Wait() (Exit, error)
	// Close releases the standard streams once nothing reads them.
	Close() error
}

// Launcher starts commands.
type Launcher interface {
	Start(ctx context.Context, cmd Command) (Process, error)
}

// Retriever is implemented by launchers whose processes run elsewhere: it
// copies a file the processes wrote (a Command's Writes) back to the same
// path on this machine, replacing what is there. A file that does not
// exist there is no error: nothing ran that would write it.
type Retriever interface {
	Retrieve(ctx context.Context, path string) error
}

// Retrieve brings path back from where l's processes run, when they run
// elsewhere; on this machine there is nothing to do.
func Retrieve(ctx context.Context, l Launcher, path string) error {
	if r, ok := l.(Retriever); ok {
		return r.Retrieve(ctx, path)
	}
	return nil
}

// Launchers is implemented by backends whose clients run elsewhere than
// on this machine.
type Launchers interface {
	Launcher(ctx context.Context) (Launcher, error)
}
