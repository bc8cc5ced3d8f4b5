package docker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/netdelay"
	"github.com/kafkabook/kafkabook/internal/nsexec"
	"github.com/kafkabook/kafkabook/internal/procstat"
)

// A delayed link (link --delay) in a container is what it is on the local
// backend: the NFQUEUE rule in the container's network namespace (package
// netfault, through nsenter like every network fault here) and
// kafkabook's delayer (package netdelay), started from this machine into
// that namespace (/proc/PID/ns/net of the container's process), so this
// machine must be the Docker host. The delayer's environment names the
// node it delays (delayerEnv), which is how a later delay, a heal, a
// stop of the node and down find it again, with or without its
// container. A container started again has a new namespace, without the
// rule, as with every network fault on this backend: the node's delayer
// is stopped before its container stops. A private cluster's delayers die
// with their owner, like its containers' reaping.

var _ cluster.Delayer = (*Backend)(nil)

// delayerEnv holds, in a delayer's environment, the node it delays:
// "ROOT|CLUSTER|NODE".
const delayerEnv = "KAFKABOOK_DELAYER_OF"

// delayerOf is the delayerEnv value of node's delayer; with node "", the
// prefix every delayer of the cluster's starts with.
func (b *Backend) delayerOf(node string) string { return b.root + "|" + b.name + "|" + node }

// Delay puts d in force on what node sends, replacing the delay it had.
func (b *Backend) Delay(ctx context.Context, node string, d cluster.LinkDelay) error {
	if m := netdelay.Missing(); m != "" {
		return fmt.Errorf("link --delay needs %s", m)
	}
	if err := d.Check(node); err != nil {
		return err
	}
	cli, c, err := b.container(ctx, node)
	if err != nil {
		return err
	}
	in, err := cli.ContainerInspect(ctx, c.ID)
	if err != nil {
		return err
	}
	if in.State == nil || !in.State.Running || in.State.Pid == 0 {
		return fmt.Errorf("link %s --delay: %s is not running; a delay is put on a running node's network", node, node)
	}
	if err := b.Unqueue(ctx, node); err != nil {
		return err
	}
	if err := b.stopDelayers(ctx, node); err != nil {
		return err
	}
	if d.Delay == 0 {
		return nil
	}
	if err := b.startDelayer(node, in.State.Pid, c.Labels[labelKept] != "true", d); err != nil {
		return err
	}
	return b.QueueDelay(ctx, node, d.To)
}

// delayerLog is where node's delayer logs, under the state root; down
// removes it.
func (b *Backend) delayerLog(node string) string {
	return filepath.Join(b.root, "docker", b.name, node+"-netdelay.log")
}

// startDelayer starts node's delayer in the network namespace of the
// container process pid and returns once it has bound its queue.
func (b *Backend) startDelayer(node string, pid int, private bool, d cluster.LinkDelay) error {
	cmd, err := netdelay.Command(netdelay.Queue, d.Delay, d.Jitter)
	if err != nil {
		return err
	}
	cmd.Env = append(cmd.Env, delayerEnv+"="+b.delayerOf(node))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	logFile := b.delayerLog(node)
	if err := os.MkdirAll(filepath.Dir(logFile), 0o755); err != nil {
		return err
	}
	ns := fmt.Sprintf("/proc/%d/ns/net", pid)
	err = netdelay.Launch(cmd, logFile, func(c *exec.Cmd) error { return nsexec.Start(ns, c, private) }, 10*time.Second)
	if cmd.Process != nil {
		go cmd.Wait() // reap it when it ends while this process lives
	}
	if err != nil {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
		return fmt.Errorf("%s: %w", node, err)
	}
	return nil
}

// delayers lists the processes of node's delayer (of every node's of the
// cluster when node is ""), whoever started them.
func (b *Backend) delayers(node string) []int {
	want := delayerEnv + "=" + b.delayerOf(node)
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || !netdelay.Is(strings.Split(string(cmdline), "\x00")) {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		if slices.ContainsFunc(strings.Split(string(env), "\x00"), func(kv string) bool {
			return kv == want || node == "" && strings.HasPrefix(kv, want)
		}) {
			out = append(out, pid)
		}
	}
	return out
}

// stopDelayers stops node's delayers (every node's when node is ""):
// SIGTERM, so that each sends on what it holds, then SIGKILL for one
// still there after 5 s.
func (b *Backend) stopDelayers(ctx context.Context, node string) error {
	pids := b.delayers(node)
	if len(pids) == 0 {
		return nil
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	if procstat.WaitGone(ctx, pids, 5*time.Second) == nil {
		return nil
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if err := procstat.WaitGone(ctx, pids, 5*time.Second); err != nil {
		return fmt.Errorf("the link delayers of %s: %w", cmp.Or(node, "cluster "+b.name), err)
	}
	return nil
}

// Handshakes times n TCP handshakes with node's inter-broker listener,
// from this machine or from node from's network namespace, sorted.
func (b *Backend) Handshakes(ctx context.Context, from, node string, n int) ([]time.Duration, error) {
	cli, c, err := b.container(ctx, node)
	if err != nil {
		return nil, err
	}
	in, err := cli.ContainerInspect(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort(c.Labels[labelIP], strconv.Itoa(interBrokerPort(in)))
	var out []time.Duration
	time1 := func() (err error) {
		out, err = cluster.TimeHandshakes(ctx, addr, n)
		return err
	}
	where := "this machine"
	if from == "" {
		err = time1()
	} else {
		where = from
		ns, nerr := b.netns(ctx, cli, from)
		if nerr != nil {
			return nil, nerr
		}
		err = nsexec.Do(ns, time1)
	}
	if err != nil {
		return nil, fmt.Errorf("time a handshake with %s's broker listener (%s) from %s: %w", node, addr, where, err)
	}
	return out, nil
}

// netns is the network namespace of node's running container.
func (b *Backend) netns(ctx context.Context, cli *client.Client, node string) (string, error) {
	_, c, err := b.container(ctx, node)
	if err != nil {
		return "", err
	}
	in, err := cli.ContainerInspect(ctx, c.ID)
	if err != nil {
		return "", err
	}
	if in.State == nil || !in.State.Running || in.State.Pid == 0 {
		return "", errors.New(node + " is not running")
	}
	return fmt.Sprintf("/proc/%d/ns/net", in.State.Pid), nil
}
