package kubernetes

import (
	"context"
	"fmt"
	"slices"

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
	a, err := b.client(ctx)
	if err != nil {
		return err
	}
	all, err := b.nodes(ctx, a)
	if err != nil {
		return err
	}
	ns, err := b.byName(all, names)
	if err != nil {
		return err
	}
	for _, n := range ns {
		if !running(n.Pod, containerFaults) {
			return fmt.Errorf("%s %s: pod %s is not running (phase %s), so kafkabook cannot act in it", op, n.Name, n.Pod.Name, n.Pod.Status.Phase)
		}
		if _, err := a.run(ctx, n.Pod.Name, containerFaults, faultScript, string(op)); err != nil {
			return fmt.Errorf("%s %s: %w", op, n.Name, err)
		}
	}
	return nil
}
