package local

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/cluster"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/kafka"
)

// readyTimeout bounds the wait for brokers to register.
const readyTimeout = 120 * time.Second

// waitBrokers waits until every node's broker is registered and unfenced
// (KRaft metadata lists only those), failing early when a node's process
// dies.
func waitBrokers(ctx context.Context, st state, seeds []string, progress cluster.Progress) error {
	c, err := kafka.Dial(seeds...)
	if err != nil {
		return err
	}
	defer c.Close()
	start := time.Now()
	var exited bool
	err = poll.Until(ctx, 100*time.Millisecond, readyTimeout, progress, func(ctx context.Context) (bool, string, error) {
		for _, n := range st.Nodes {
			if alive, _ := n.alive(); !alive {
				exited = true
				return false, "", fmt.Errorf("%s exited while starting:\n%s", n.Name, n.logTail(30))
			}
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		ids, err := c.Brokers(rctx)
		cancel()
		if err != nil {
			return false, "waiting for brokers: no broker answers yet", nil
		}
		var missing []string
		for _, n := range st.Nodes {
			if !slices.Contains(ids, int32(n.ID)) {
				missing = append(missing, n.Name)
			}
		}
		if len(missing) > 0 {
			return false, fmt.Sprintf("waiting for brokers: %d/%d registered, waiting for %s",
				len(st.Nodes)-len(missing), len(st.Nodes), strings.Join(missing, ", ")), nil
		}
		return true, "", nil
	})
	switch {
	case err == nil:
		progress("all %d brokers registered and unfenced after %.1fs", len(st.Nodes), time.Since(start).Seconds())
		return nil
	case exited || ctx.Err() != nil:
		return err
	}
	var tails strings.Builder
	for _, n := range st.Nodes {
		tails.WriteString(n.logTail(10))
	}
	return fmt.Errorf("brokers not ready: %w\n%s", err, tails.String())
}
