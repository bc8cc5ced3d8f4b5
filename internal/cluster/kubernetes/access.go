package kubernetes

import (
	"context"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// access is how kafkabook's own clients reach the brokers: every
// connection is opened from the client pod (dial), so that the brokers'
// in-cluster names resolve and the connection meets a pod's faults.
func (c *clients) access(ctx context.Context) (cluster.Access, error) {
	if err := c.prepare(ctx); err != nil {
		return cluster.Access{}, err
	}
	return cluster.Access{Dial: c.dial}, nil
}

// Access is how kafkabook's clients reach the cluster's brokers: from its
// client pod, <cluster>-clients.
func (b *Backend) Access(ctx context.Context) (cluster.Access, error) {
	a, err := b.client(ctx)
	if err != nil {
		return cluster.Access{}, err
	}
	c, err := newClients(a, b.clientPod())
	if err != nil {
		return cluster.Access{}, err
	}
	return c.access(ctx)
}
