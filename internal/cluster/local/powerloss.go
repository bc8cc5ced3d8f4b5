package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/nsexec"
	"github.com/kafkabook/kafkabook/internal/powerfs"
	"github.com/kafkabook/kafkabook/internal/procstat"
)

// A cluster started with cluster.Config.PowerLoss keeps each node's Kafka
// data directory (log.dirs, <node>/data) on a power-loss layer
// (internal/powerfs): a FUSE mount served by a process of its own over
// <node>/durable, which holds exactly what the broker fsynced. The layer
// lives as long as the node's machine would: kill, stop and start act on
// the broker only, and what it wrote without fsync stays readable, as the
// page cache keeps it when a process dies. PowerLoss kills the broker and
// the layer, which takes the unsynced writes with it, and detaches the
// dead mount; start mounts the layer again over what was durable, then
// starts the broker.

var _ cluster.PowerLoss = (*Backend)(nil)

// sideProc is a process kafkabook runs beside a node (the one serving its
// layer, its link's delayer), named by pid and /proc start time like a
// node's JVM.
type sideProc struct {
	PID       int    `json:"pid"`
	StartTime uint64 `json:"start_time"`
}

func (p *sideProc) alive() bool {
	if p == nil {
		return false
	}
	st, err := procstat.Read(p.PID)
	return err == nil && st.Start == p.StartTime && !st.Dead()
}

// layerLog is where a node's layer logs, relative to the node's directory.
const layerLog = "logs/powerfs.log"

func (n nodeState) dataDir() string    { return filepath.Join(n.Dir, "data") }
func (n nodeState) durableDir() string { return filepath.Join(n.Dir, "durable") }
func (n nodeState) layerStats() string { return filepath.Join(n.Dir, "logs", "powerfs-pending.json") }

// needLayer explains why this machine cannot run the layer, or is nil.
func needLayer() error {
	if m := powerfs.Missing(); m != "" {
		return fmt.Errorf("powerloss needs the power-loss layer, a FUSE file system, and this machine lacks %s; kafkabook will not stand in something weaker for a power loss", m)
	}
	return nil
}

// moveToLayer makes the freshly formatted data directory of node n the
// layer's backing directory, so that what the storage tool wrote is
// durable, as on a machine that has been up a while, and leaves an empty
// data directory to mount the layer on.
func (n nodeState) moveToLayer() error {
	if err := os.Rename(n.dataDir(), n.durableDir()); err != nil {
		return err
	}
	return os.Mkdir(n.dataDir(), 0o755)
}

// mountLayer mounts node n's layer unless it is mounted, first detaching
// the mount a dead layer left behind, and returns n with the layer's
// process recorded.
func (st state) mountLayer(n nodeState) (nodeState, error) {
	if n.Layer.alive() && layerMounted(n.dataDir()) {
		return n, nil
	}
	if n.Layer.alive() {
		syscall.Kill(n.Layer.PID, syscall.SIGKILL)
	}
	n.Layer = nil
	if err := detach(n.dataDir()); err != nil {
		return n, err
	}
	cmd, err := powerfs.Command(n.durableDir(), n.dataDir(), n.layerStats())
	if err != nil {
		return n, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = powerfs.Launch(cmd, filepath.Join(n.Dir, layerLog), func(c *exec.Cmd) error {
		return nsexec.Start("", c, st.private())
	}, 30*time.Second)
	if cmd.Process != nil {
		go cmd.Wait() // reap it when it dies while this process lives
	}
	if err != nil {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
		return n, fmt.Errorf("%s: %w", n.Name, err)
	}
	n.Layer = &sideProc{PID: cmd.Process.Pid, StartTime: startTime(cmd.Process.Pid)}
	return n, nil
}

// layerMounted reports whether the layer is mounted at dir.
func layerMounted(dir string) bool {
	ms, _ := mountinfo("self")
	for _, m := range ms {
		if m.Point == dir && m.FSType == powerfs.FSType {
			return true
		}
	}
	return false
}

// detach removes every mount at dir (a layer's, dead or alive).
func detach(dir string) error {
	for _, m := range mountsUnder(dir) {
		if err := unmountLazy(m); err != nil {
			return err
		}
	}
	return nil
}

// stopLayer kills node n's layer, and with it everything n wrote and did
// not fsync, and detaches its mount.
func (n nodeState) stopLayer(ctx context.Context) error {
	if n.Layer.alive() {
		if err := syscall.Kill(n.Layer.PID, syscall.SIGKILL); err != nil {
			return err
		}
		if err := procstat.WaitGone(ctx, []int{n.Layer.PID}, 10*time.Second); err != nil {
			return fmt.Errorf("the power-loss layer of %s: %w", n.Name, err)
		}
	}
	return detach(n.dataDir())
}

// PowerLoss cuts the nodes' power: every broker is killed first, at once,
// then every layer, with what its broker had not fsynced.
func (b *Backend) PowerLoss(ctx context.Context, names []string, progress cluster.Progress) ([]cluster.Dropped, error) {
	if err := needRoot("powerloss"); err != nil {
		return nil, err
	}
	if err := needLayer(); err != nil {
		return nil, err
	}
	unlock, err := b.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, ok, err := b.load()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no cluster %q is up (start one with `kafkabook cluster up`)", b.name)
	}
	if !st.PowerLoss {
		return nil, fmt.Errorf("cluster %q runs without the power-loss layer, so its nodes cannot lose power; a run whose runbook uses powerloss starts a cluster with it", b.name)
	}
	idx, err := st.indexes(names)
	if err != nil {
		return nil, err
	}
	for _, i := range idx {
		if err := st.Nodes[i].signal(syscall.SIGKILL); err != nil {
			return nil, fmt.Errorf("powerloss %s: %w", st.Nodes[i].Name, err)
		}
	}
	var dropped []cluster.Dropped
	for _, i := range idx {
		n := st.Nodes[i]
		if err := n.waitGone(ctx, 5*time.Second, nil); err != nil {
			return nil, fmt.Errorf("powerloss %s: after SIGKILL: %w", n.Name, err)
		}
		dropSockets(ctx, n, progress)
		d := cluster.Dropped{Node: n.Name}
		if n.Layer.alive() {
			s, err := powerfs.AskPending(n.Layer.PID, n.layerStats(), 5*time.Second)
			if err != nil {
				return nil, fmt.Errorf("powerloss %s: %w", n.Name, err)
			}
			d.Bytes, d.Files, d.Metadata = s.Bytes, s.Files, s.Metadata
		}
		dropped = append(dropped, d)
	}
	for _, i := range idx {
		n := &st.Nodes[i]
		err := n.stopLayer(ctx)
		n.Layer = nil
		n.Last = "powerloss"
		if saveErr := b.save(st); saveErr != nil && err == nil {
			err = saveErr
		}
		if err != nil {
			return nil, fmt.Errorf("powerloss %s: %w", n.Name, err)
		}
	}
	return dropped, nil
}

// indexes finds the named nodes.
func (st state) indexes(names []string) ([]int, error) {
	idx := make([]int, len(names))
	for i, name := range names {
		idx[i] = -1
		for j, n := range st.Nodes {
			if n.Name == name {
				idx[i] = j
			}
		}
		if idx[i] < 0 {
			return nil, fmt.Errorf("no node %q in cluster %q (it has k1..k%d)", name, st.Name, len(st.Nodes))
		}
	}
	return idx, nil
}

// isLayer reports whether pid is a power-loss layer's process.
func isLayer(pid int) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.Split(string(cmdline), "\x00")
	return len(args) > 1 && args[1] == powerfs.Arg0
}
