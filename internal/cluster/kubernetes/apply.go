package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// Apply performs op on the named nodes, in the order given, through each
// pod's fault script (see the package comment for what each op does); an
// op whose effect is there already does nothing, except pause on a node
// whose broker does not run, which is an error.
func (b *Backend) Apply(ctx context.Context, op cluster.Op, names []string, progress cluster.Progress) error {
	if !slices.Contains(cluster.Ops, op) {
		return fmt.Errorf("unknown operation %q", op)
	}
	a, all, err := b.clusterNodes(ctx)
	if err != nil {
		return err
	}
	ns, err := b.byName(all, names)
	if err != nil {
		return err
	}
	defer b.states.forget()
	for _, n := range ns {
		b.states.forget()
		if !running(n.Pod, containerFaults) {
			return fmt.Errorf("%s %s: pod %s is not running (phase %s), so kafkabook cannot act in it", op, n.Name, n.Pod.Name, n.Pod.Status.Phase)
		}
		if version, ok := b.nextRelease(n.Name, op); ok {
			if err := b.remake(ctx, a, n, version, progress); err != nil {
				return err
			}
			continue // its supervisor starts the broker
		}
		// stop waits up to 60 s for the broker, then kills it.
		octx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		_, err := a.run(octx, n.Pod.Name, containerFaults, faultScript, string(op))
		cancel()
		if err != nil {
			return fmt.Errorf("%s %s: %w", op, n.Name, err)
		}
	}
	return nil
}
