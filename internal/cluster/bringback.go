package cluster

import (
	"context"
	"fmt"
)

// BringBack repairs every node a fault left down, each with the repair
// Faults names for its state (starts killed, stopped and exited nodes,
// resumes paused ones, rejoins isolated ones), and removes partitions and
// packet loss (NetFaults). A disk fault is healed first (Disks), so that
// a broker it took down does not meet it again, and every node's wall
// clock is put right (Clocks), so that a broker starts on the right time. say hears each repair
// before it is applied. It does not wait for the brokers: the engine waits
// for a full ISR with its own client, and so do tests that share a
// cluster; this is the part both need from the backend.
func BringBack(ctx context.Context, b Backend, progress Progress, say func(op Op, node string, was State)) error {
	if err := healDisks(ctx, b, say); err != nil {
		return err
	}
	if err := healClocks(ctx, b, say); err != nil {
		return err
	}
	st, err := b.Status(ctx)
	if err != nil {
		return err
	}
	for _, n := range st.Nodes {
		op := RepairFor(n.State)
		if op == "" {
			continue
		}
		say(op, n.Name, n.State)
		if err := b.Apply(ctx, op, []string{n.Name}, progress); err != nil {
			return err
		}
	}
	if nf, ok := b.(NetFaults); ok {
		if err := nf.HealNetwork(ctx); err != nil {
			return fmt.Errorf("healing the network: %w", err)
		}
	}
	// A paused node may also have been isolated: resuming it shows it.
	if st, err = b.Status(ctx); err == nil {
		for _, n := range st.Nodes {
			if n.State == Isolated {
				say(Rejoin, n.Name, n.State)
				if err := b.Apply(ctx, Rejoin, []string{n.Name}, progress); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
