package kafka

import (
	"context"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// Ready is how a backend's Up learns that its brokers are ready: registered
// and unfenced, as this client sees them. Package cluster takes it as
// Config.Ready, since it imports no Kafka client itself.
func Ready(seeds []string, access cluster.Access) (cluster.Registry, error) {
	c, err := Dial(Brokers{Seeds: seeds, Access: access})
	if err != nil {
		return nil, err
	}
	return registry{c}, nil
}

// registry is the client seen as a cluster.Registry.
type registry struct{ *Client }

func (r registry) Brokers(ctx context.Context) ([]int32, error) { return r.Client.Brokers(ctx) }

func (r registry) Answers(ctx context.Context, id int32) error {
	_, err := r.Client.BrokersAt(ctx, id)
	return err
}
