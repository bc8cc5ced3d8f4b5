package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/poll"
)

// ReadyTimeout bounds the wait for brokers to register.
const ReadyTimeout = 120 * time.Second

// Registry is a cluster's list of live brokers, as its KRaft metadata
// holds it. This package does not speak Kafka's protocol: whoever starts a
// cluster passes a Ready that opens one through a Kafka client.
type Registry interface {
	// Brokers lists the ids of the brokers registered and unfenced now.
	Brokers(ctx context.Context) ([]int32, error)
	// Answers asks broker id itself, on the listener it advertises, and
	// says whether it answered: a broker is registered and unfenced a
	// moment before its client listener takes connections.
	Answers(ctx context.Context, id int32) error
	// Close releases the registry's connections.
	Close()
}

// Ready opens the Registry of the cluster whose brokers listen at seeds,
// reached as access says.
type Ready func(seeds []string, access Access) (Registry, error)

// ErrNoReady is Up's answer to a Config without Ready: a caller's mistake.
var ErrNoReady = errors.New("cluster.Config.Ready is nil: the caller must say how to ask the cluster which brokers are registered (kafkabook passes its Kafka client)")

// WaitBrokers waits until the broker of every node is registered and
// unfenced (KRaft metadata lists only those) and answers on its own
// listener, asking through ready (the brokers reached as access says). It
// fails early, with the end of its log, when dead names a node whose
// process is gone; tail gives the end of a node's log for error messages.
// Every backend starts its nodes and then waits here; its Up refuses a
// nil ready (ErrNoReady) before it creates anything.
func WaitBrokers(ctx context.Context, ready Ready, access Access, nodes []Node, dead func(context.Context) string, tail func(node string, lines int) string, progress Progress) error {
	var seeds []string
	for _, n := range nodes {
		seeds = append(seeds, n.Address)
	}
	reg, err := ready(seeds, access)
	if err != nil {
		return err
	}
	defer reg.Close()
	start := time.Now()
	var exited bool
	err = poll.Until(ctx, 100*time.Millisecond, ReadyTimeout, poll.Progress(progress), func(ctx context.Context) (bool, string, error) {
		if n := dead(ctx); n != "" {
			exited = true
			return false, "", fmt.Errorf("%s exited while starting:\n%s", n, tail(n, 30))
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		ids, err := reg.Brokers(rctx)
		cancel()
		if err != nil {
			return false, "waiting for brokers: no broker answers yet", nil
		}
		var missing []string
		for _, n := range nodes {
			if !slices.Contains(ids, int32(n.ID)) {
				missing = append(missing, n.Name)
			}
		}
		if len(missing) > 0 {
			return false, fmt.Sprintf("waiting for brokers: %d/%d registered, waiting for %s",
				len(nodes)-len(missing), len(nodes), strings.Join(missing, ", ")), nil
		}
		for _, n := range nodes {
			rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			err := reg.Answers(rctx, int32(n.ID))
			cancel()
			if err != nil {
				return false, fmt.Sprintf("waiting for brokers: all registered, waiting for %s to answer on its own listener", n.Name), nil
			}
		}
		return true, "", nil
	})
	switch {
	case err == nil:
		progress("all %d brokers registered and unfenced after %.1fs", len(nodes), time.Since(start).Seconds())
		return nil
	case exited || ctx.Err() != nil:
		return err
	}
	var tails strings.Builder
	for _, n := range nodes {
		tails.WriteString(tail(n.Name, 10))
	}
	return fmt.Errorf("brokers not ready: %w\n%s", err, tails.String())
}

// FirstDown is the first node a fresh Status of b says is not up, or ""
// when every node is (or the status cannot be read): WaitBrokers' dead
// for a backend whose Status sees its nodes' processes.
func FirstDown(ctx context.Context, b Backend) string {
	st, err := b.Status(ctx)
	if err != nil {
		return ""
	}
	for _, n := range st.Nodes {
		if !n.State.Up() {
			return n.Name
		}
	}
	return ""
}

// LogTail is the last lines of a node's log as b.Logs gives it, headed
// with what the log is ("container log"), for error messages; "" when it
// cannot be read. It reads even after ctx ended: an error message is
// written once the wait gave up.
func LogTail(ctx context.Context, b Backend, node, what string, lines int) string {
	rc, err := b.Logs(context.WithoutCancel(ctx), node)
	if err != nil {
		return ""
	}
	defer rc.Close()
	data, _ := io.ReadAll(io.LimitReader(rc, 16<<20))
	return fmt.Sprintf("--- %s %s (last %d lines)\n%s\n", node, what, lines, TailLines(string(data), lines))
}

// TailLines is the last n lines of s: the end of a log or of a tool's
// output, for an error message.
func TailLines(s string, n int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(all) > n {
		all = all[len(all)-n:]
	}
	return strings.Join(all, "\n")
}
