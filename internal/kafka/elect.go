package kafka

import (
	"context"

	"github.com/twmb/franz-go/pkg/kadm"
)

// ElectPreferredLeaders asks the controller to make every partition's
// preferred replica (the first of its assignment) its leader again, as a
// fresh cluster has them. Partitions already led by it, or whose preferred
// replica cannot lead now, keep their leader: the caller waits for the
// leaders it needs. A cluster whose leaders stay off their preferred
// replicas after a fault moves them back on its own (Kafka's automatic
// leader rebalance, every 5 minutes by default), at a moment no run chose.
func (c *Client) ElectPreferredLeaders(ctx context.Context) error {
	_, err := kadm.NewClient(c.cl).ElectLeaders(ctx, kadm.ElectPreferredReplica, nil)
	return err
}
