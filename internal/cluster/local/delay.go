package local

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/netdelay"
	"github.com/kafkabook/kafkabook/internal/nsexec"
	"github.com/kafkabook/kafkabook/internal/procstat"
)

// A delayed link (link --delay) is a rule in the node's namespace that
// queues what the node sends (package netfault) and a delayer, the
// kafkabook binary started again inside the namespace (package
// netdelay), that sends each packet on when it is due. The delayer is
// recorded in the state like the node's JVM, lives until the delay is
// changed, healed or the cluster goes down, and dies with a private
// cluster's owner; a node killed and started keeps its slow link, as it
// keeps a partition.

var _ cluster.Delayer = (*Backend)(nil)

// delayerLog is where a node's delayer logs, relative to the node's
// directory.
const delayerLog = "logs/netdelay.log"

// Delay puts d in force on what node sends, replacing the delay it had:
// the old delayer is stopped once nothing more is queued to it (it sends
// what it holds), the new one bound before the rule queues to it.
func (b *Backend) Delay(ctx context.Context, node string, d cluster.LinkDelay) error {
	if m := netdelay.Missing(); m != "" {
		return fmt.Errorf("link --delay needs %s", m)
	}
	if err := d.Check(node); err != nil {
		return err
	}
	return b.changing("link --delay", []string{node}, func(st *state, idx []int) error {
		n := &st.Nodes[idx[0]]
		if err := b.Unqueue(ctx, node); err != nil {
			return err
		}
		if err := n.stopDelayer(ctx); err != nil {
			return err
		}
		n.Delayer = nil
		if d.Delay == 0 {
			return nil
		}
		p, err := st.startDelayer(*n, d)
		if err != nil {
			return err
		}
		n.Delayer = p
		if err := b.save(*st); err != nil {
			return err
		}
		return b.QueueDelay(ctx, node, d.To)
	})
}

// startDelayer starts node n's delayer in its namespace and returns it
// once it has bound its queue.
func (st state) startDelayer(n nodeState, d cluster.LinkDelay) (*sideProc, error) {
	cmd, err := netdelay.Command(netdelay.Queue, d.Delay, d.Jitter)
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := os.MkdirAll(filepath.Join(n.Dir, "logs"), 0o755); err != nil {
		return nil, err
	}
	err = netdelay.Launch(cmd, filepath.Join(n.Dir, delayerLog), func(c *exec.Cmd) error {
		return nsexec.Start(n.NS, c, st.private())
	}, 10*time.Second)
	if cmd.Process != nil {
		go cmd.Wait() // reap it when it ends while this process lives
	}
	if err != nil {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
		return nil, fmt.Errorf("%s: %w", n.Name, err)
	}
	return &sideProc{PID: cmd.Process.Pid, StartTime: startTime(cmd.Process.Pid)}, nil
}

// stopDelayer stops node n's delayer, if it runs: SIGTERM, so that it
// sends on what it holds, then SIGKILL if it has not gone within 5 s.
func (n nodeState) stopDelayer(ctx context.Context) error {
	if !n.Delayer.alive() {
		return nil
	}
	if err := syscall.Kill(n.Delayer.PID, syscall.SIGTERM); err != nil {
		return err
	}
	if procstat.WaitGone(ctx, []int{n.Delayer.PID}, 5*time.Second) == nil {
		return nil
	}
	syscall.Kill(n.Delayer.PID, syscall.SIGKILL)
	if err := procstat.WaitGone(ctx, []int{n.Delayer.PID}, 5*time.Second); err != nil {
		return fmt.Errorf("the link delayer of %s: %w", n.Name, err)
	}
	return nil
}

// HealNetwork removes every partition, loss, rate limit and delay: the
// rules first, then the delayers, which send on what they hold.
func (b *Backend) HealNetwork(ctx context.Context) error {
	if err := b.Faults.HealNetwork(ctx); err != nil {
		return err
	}
	st, ok, err := b.load()
	if err != nil || !ok || !slices.ContainsFunc(st.Nodes, func(n nodeState) bool { return n.Delayer != nil }) {
		return err
	}
	return b.changing("heal", nil, func(st *state, _ []int) error {
		for i := range st.Nodes {
			if err := st.Nodes[i].stopDelayer(ctx); err != nil {
				return err
			}
			st.Nodes[i].Delayer = nil
		}
		return nil
	})
}

// Handshakes times n TCP handshakes with node's broker listener, from the
// host or from node from's namespace, sorted.
func (b *Backend) Handshakes(ctx context.Context, from, node string, n int) ([]time.Duration, error) {
	st, ok, err := b.load()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: no cluster %q is up", cluster.ErrNotFound, b.name)
	}
	names := []string{node}
	if from != "" {
		names = append(names, from)
	}
	idx, err := st.indexes(names)
	if err != nil {
		return nil, err
	}
	ns := ""
	if from != "" {
		ns = st.Nodes[idx[1]].NS
	}
	addr := net.JoinHostPort(st.Network.nodeIP(st.Nodes[idx[0]].ID).String(), fmt.Sprint(brokerPort))
	var out []time.Duration
	time1 := func() (err error) {
		out, err = cluster.TimeHandshakes(ctx, addr, n)
		return err
	}
	if ns == "" {
		err = time1()
	} else {
		err = nsexec.Do(ns, time1)
	}
	if err != nil {
		where := "this machine"
		if from != "" {
			where = from
		}
		return nil, fmt.Errorf("time a handshake with %s's broker listener (%s) from %s: %w", node, addr, where, err)
	}
	return out, nil
}

// isDelayer reports whether pid is a link delayer.
func isDelayer(pid int) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && netdelay.Is(strings.Split(string(cmdline), "\x00"))
}
