package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/poll"
)

// ReadyTimeout bounds the wait for brokers to register.
const ReadyTimeout = 120 * time.Second

// WaitBrokers waits until the broker of every node is registered and
// unfenced (KRaft metadata lists only those). It fails early, with the end
// of its log, when dead names a node whose process is gone; tail gives the
// end of a node's log for error messages. Every backend starts its nodes
// and then waits here.
func WaitBrokers(ctx context.Context, nodes []Node, dead func(context.Context) string, tail func(node string, lines int) string, progress Progress) error {
	var seeds []string
	for _, n := range nodes {
		seeds = append(seeds, n.Address)
	}
	c, err := kafka.Dial(seeds...)
	if err != nil {
		return err
	}
	defer c.Close()
	start := time.Now()
	var exited bool
	err = poll.Until(ctx, 100*time.Millisecond, ReadyTimeout, poll.Progress(progress), func(ctx context.Context) (bool, string, error) {
		if n := dead(ctx); n != "" {
			exited = true
			return false, "", fmt.Errorf("%s exited while starting:\n%s", n, tail(n, 30))
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		ids, err := c.Brokers(rctx)
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
