// Package kafka is kafkabook's client side of a cluster, on franz-go: the
// produce ledger, fresh leader/ISR metadata, reading a topic to its high
// watermark, and creating topics. It knows addresses, not nodes.
package kafka

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Client is an admin and metadata connection to a cluster.
type Client struct {
	cl *kgo.Client
}

// baseOpts keep a client responsive when brokers die or vanish from the
// network: short dial and request timeouts, so it moves on to another
// broker instead of hanging on a dead one.
func baseOpts(seeds []string) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(seeds...),
		kgo.DialTimeout(time.Second),
		kgo.RequestTimeoutOverhead(3 * time.Second),
		kgo.MetadataMinAge(100 * time.Millisecond),
		kgo.MetadataMaxAge(2 * time.Second),
		kgo.RetryBackoffFn(func(int) time.Duration { return 100 * time.Millisecond }),
	}
}

// Dial connects lazily to the cluster behind seeds.
func Dial(seeds ...string) (*Client, error) {
	cl, err := kgo.NewClient(baseOpts(seeds)...)
	if err != nil {
		return nil, err
	}
	return &Client{cl: cl}, nil
}

// Close closes the connections.
func (c *Client) Close() { c.cl.Close() }
