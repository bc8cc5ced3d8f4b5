// Package nsexec starts processes and runs code inside a Linux network
// namespace: the local backend's nodes' (named, under /run/netns) and a
// container's (a path, /proc/PID/ns/net). A thread switches namespace for
// the start or the call only.
package nsexec

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/vishvananda/netns"
)

// Every process a backend starts in a network namespace (or, when it
// must die with kafkabook, on the host) is started from one goroutine
// locked to its OS thread for the life of the process.
//
// Why: the JVMs of a private cluster get a parent-death signal
// (SysProcAttr.Pdeathsig), so the kernel kills them when kafkabook dies in
// any way, SIGKILL and the OOM killer included. That signal fires when the
// *thread* that forked the child exits, not the process; Go ends a thread
// when a goroutine locked to it returns (as a namespace switch does when
// it fails to switch back), and such a thread would take the JVMs with it.
// The launcher's thread never exits while the process lives, so the
// signal means what it should. A watchdog process would do the same but is
// one more process that can itself be killed, and needs a protocol; the
// kernel's signal needs neither.
//
// The launcher also switches its thread into a node's network namespace
// for the start only, so the JVM is born inside it.

type launch struct {
	ns   string // network namespace to start in; "" for the host's
	cmd  *exec.Cmd
	done chan error
}

var (
	launcherOnce sync.Once
	launches     chan launch
)

// Start starts cmd from the launcher thread, inside network namespace ns
// (a name under /run/netns, or a path such as /proc/PID/ns/net) when it
// is not empty. When dieWithUs is set the process is
// killed as soon as this process dies.
func Start(ns string, cmd *exec.Cmd, dieWithUs bool) error {
	launcherOnce.Do(func() {
		launches = make(chan launch)
		go launcher(launches)
	})
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if dieWithUs {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	l := launch{ns: ns, cmd: cmd, done: make(chan error, 1)}
	launches <- l
	return <-l.done
}

// launcher serves start requests forever on a thread of its own.
func launcher(reqs <-chan launch) {
	runtime.LockOSThread() // never unlocked, and this goroutine never returns
	host, hostErr := netns.Get()
	var stuck error // set when the thread could not return to the host namespace
	for l := range reqs {
		switch {
		case stuck != nil:
			l.done <- stuck
		case l.ns == "":
			l.done <- l.cmd.Start()
		case hostErr != nil:
			l.done <- fmt.Errorf("network namespace of this process: %w", hostErr)
		default:
			back, err := startInNS(host, l)
			if !back {
				if serr := netns.Set(host); serr != nil {
					stuck = fmt.Errorf("the process launcher is stuck in network namespace %s (%v): restart kafkabook", l.ns, serr)
				}
			}
			l.done <- err
		}
	}
}

// startInNS starts l.cmd inside l.ns; back is false when the thread may
// not have returned to the host namespace.
func startInNS(host netns.NsHandle, l launch) (back bool, err error) {
	h, err := handle(l.ns)
	if err != nil {
		return true, fmt.Errorf("network namespace %s: %w", l.ns, err)
	}
	defer h.Close()
	if err := netns.Set(h); err != nil {
		return false, fmt.Errorf("enter network namespace %s: %w", l.ns, err)
	}
	startErr := l.cmd.Start()
	if err := netns.Set(host); err != nil {
		return false, fmt.Errorf("return from network namespace %s: %w", l.ns, err)
	}
	return true, startErr
}

// Do runs f on a thread switched into network namespace name (as Start
// names it), so that the
// sockets f opens live there. The thread returns to the host's namespace
// afterwards, or ends with its goroutine when it cannot.
func Do(name string, f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		host, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer host.Close()
		h, err := handle(name)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("network namespace %s: %w", name, err)
			return
		}
		defer h.Close()
		if err := netns.Set(h); err != nil {
			errc <- fmt.Errorf("enter network namespace %s: %w", name, err)
			return // the thread stays locked and ends with this goroutine
		}
		ferr := f()
		if err := netns.Set(host); err != nil {
			errc <- fmt.Errorf("return from network namespace %s: %w", name, err)
			return
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

// handle opens network namespace ns: a path when it starts with "/",
// else a name under /run/netns.
func handle(ns string) (netns.NsHandle, error) {
	if strings.HasPrefix(ns, "/") {
		return netns.GetFromPath(ns)
	}
	return netns.GetFromName(ns)
}
