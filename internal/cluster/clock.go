package cluster

import (
	"context"
	"fmt"
	"time"
)

// Clocks is implemented by backends whose brokers run with their wall
// clock under kafkabook's hand (the local backend preloads libfaketime
// into each JVM of a cluster started with Config.Clock): a node's wall
// clock can jump, forward or back, while its monotonic clock, which the
// JVM's timers and Kafka's timeouts run on, stays right, as when a
// machine's clock is stepped.
type Clocks interface {
	// Clock moves the nodes' wall clocks by jump from where each is, or,
	// with reset, puts them right; it returns each node's offset from
	// this host's clock after the change, as written (what the broker
	// shows of it is the caller's to read back).
	Clock(ctx context.Context, nodes []string, jump time.Duration, reset bool) ([]ClockState, error)
	// ClockStates is every node's offset as written, the nodes whose
	// clock is right included.
	ClockStates(ctx context.Context) ([]ClockState, error)
}

// ClockState is how far a node's wall clock is set from this host's:
// ahead when Offset is positive.
type ClockState struct {
	Node   string        `json:"node"`
	Offset time.Duration `json:"offset"`
}

// OffsetText is an offset with its sign, as a jump is written: +1h0m0s,
// -30m0s, +0s.
func OffsetText(d time.Duration) string {
	if d < 0 {
		return d.String()
	}
	return "+" + d.String()
}

// healClocks puts every node's wall clock right, before BringBack starts
// the nodes a fault took down (they start on it).
func healClocks(ctx context.Context, b Backend, say func(op Op, node string, was State)) error {
	c, ok := b.(Clocks)
	if !ok {
		return nil
	}
	states, err := c.ClockStates(ctx)
	if err != nil {
		return fmt.Errorf("reading the nodes' clocks: %w", err)
	}
	var off []string
	for _, s := range states {
		if s.Offset != 0 {
			off = append(off, s.Node)
			say(repairOf("clock"), s.Node, State(OffsetText(s.Offset)))
		}
	}
	if len(off) == 0 {
		return nil
	}
	_, err = c.Clock(ctx, off, 0, true)
	return err
}
