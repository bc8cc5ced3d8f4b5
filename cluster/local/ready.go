package local

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/cluster"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// readyTimeout bounds the wait for brokers to register.
const readyTimeout = 120 * time.Second

// waitBrokers polls metadata until want brokers are registered and
// unfenced (KRaft metadata lists only those), failing early when a node's
// process dies.
func waitBrokers(ctx context.Context, st state, seeds []string, want int, progress cluster.Progress) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DialTimeout(time.Second),
		kgo.RequestTimeoutOverhead(2*time.Second), kgo.MetadataMinAge(10*time.Millisecond))
	if err != nil {
		return err
	}
	defer cl.Close()
	start := time.Now()
	last := time.Time{}
	for {
		for _, n := range st.Nodes {
			if alive, _ := n.alive(); !alive {
				return fmt.Errorf("%s exited while starting:\n%s", n.Name, n.logTail(30))
			}
		}
		have := 0
		var missing []string
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		// A direct request: kadm's metadata may come from the client's
		// cache, which keeps an old broker list.
		m, err := kmsg.NewPtrMetadataRequest().RequestWith(rctx, cl)
		cancel()
		if err == nil {
			for _, n := range st.Nodes {
				if slices.ContainsFunc(m.Brokers, func(b kmsg.MetadataResponseBroker) bool { return int(b.NodeID) == n.ID }) {
					have++
				} else {
					missing = append(missing, n.Name)
				}
			}
		}
		if have >= want {
			progress("all %d brokers registered and unfenced after %.1fs", want, time.Since(start).Seconds())
			return nil
		}
		if time.Since(last) >= time.Second {
			last = time.Now()
			waiting := "no broker answers yet"
			if err == nil {
				waiting = fmt.Sprintf("%d/%d registered, waiting for %s", have, want, strings.Join(missing, ", "))
			}
			progress("waiting for brokers: %s (%.0fs)", waiting, time.Since(start).Seconds())
		}
		if time.Since(start) > readyTimeout {
			var tails strings.Builder
			for _, n := range st.Nodes {
				tails.WriteString(n.logTail(10))
			}
			return fmt.Errorf("brokers not ready after %s:\n%s", readyTimeout, tails.String())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
