package kafka

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Partition is the leader and ISR of one partition as a broker reported it.
type Partition struct {
	Topic       string
	ID          int32
	Leader      int32 // -1 when there is none
	LeaderEpoch int32
	Replicas    []int32
	ISR         []int32
	Err         string // Kafka error name, "" when none
}

// String is the `isr` line: `acks1 partition 0: leader=1 replicas=[1, 2, 3] isr=[1, 2, 3]`.
func (p Partition) String() string {
	s := fmt.Sprintf("%s partition %d: leader=%d replicas=%s isr=%s", p.Topic, p.ID, p.Leader, ids(p.Replicas), ids(p.ISR))
	if p.Err != "" {
		s += " error=" + p.Err
	}
	return s
}

func ids(v []int32) string {
	s := make([]string, len(v))
	for i, id := range v {
		s[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// Partitions asks a broker for fresh metadata of the topics (never the
// client's cache: kadm serves metadata up to MetadataMinAge old, and an ISR
// sample must be of now). Partitions come sorted by topic, then id.
func (c *Client) Partitions(ctx context.Context, topics ...string) ([]Partition, error) {
	return c.PartitionsFrom(ctx, nil, topics...)
}

// PartitionsFrom is Partitions asking the given brokers in turn, each for
// at most a second: when brokers are cut off, a request that the client
// sends to any broker may sit on a dead connection for its whole timeout.
// With no brokers given, any broker answers.
func (c *Client) PartitionsFrom(ctx context.Context, brokers []int32, topics ...string) ([]Partition, error) {
	resp, err := c.metadata(ctx, brokers, metadataRequest(topics))
	if err != nil {
		return nil, err
	}
	return partitions(resp)
}

// partitions lists the partitions of a metadata response, sorted by topic,
// then id.
func partitions(resp *kmsg.MetadataResponse) ([]Partition, error) {
	var out []Partition
	for _, t := range resp.Topics {
		name := ""
		if t.Topic != nil {
			name = *t.Topic
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return nil, fmt.Errorf("topic %s: %w", name, err)
		}
		for _, p := range t.Partitions {
			part := Partition{
				Topic: name, ID: p.Partition, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
				Replicas: slices.Clone(p.Replicas), ISR: slices.Clone(p.ISR),
			}
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				part.Err = errName(err)
			}
			out = append(out, part)
		}
	}
	slices.SortFunc(out, func(a, b Partition) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	})
	return out, nil
}

// metadata sends req to the first of brokers that answers, or to any
// broker when none are given.
func (c *Client) metadata(ctx context.Context, brokers []int32, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, error) {
	resp, err := c.askFirst(ctx, brokers, req)
	if err != nil {
		return nil, err
	}
	return resp.(*kmsg.MetadataResponse), nil
}

// askFirst sends req to the first of brokers that answers within a
// second, or to any broker when none are given. Asking only the nodes
// that run matters while a broker is paused: a request it holds is
// answered by nobody until the client's read timeout, long after the
// cluster has moved on.
func (c *Client) askFirst(ctx context.Context, brokers []int32, req kmsg.Request) (kmsg.Response, error) {
	if len(brokers) == 0 {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return c.cl.Request(ctx, req)
	}
	var lastErr error
	for _, id := range brokers {
		bctx, cancel := context.WithTimeout(ctx, time.Second)
		resp, err := c.cl.Broker(int(id)).Request(bctx, req)
		cancel()
		if err == nil {
			return resp, nil
		}
		lastErr = fmt.Errorf("broker %d: %w", id, err)
		if ctx.Err() != nil {
			return nil, lastErr
		}
	}
	// None answered, or the client has not learnt their addresses yet.
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	resp, err := c.cl.Request(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%w (and %v)", err, lastErr)
	}
	return resp, nil
}

// PartitionsAt is Partitions asked of broker id and no other: what that
// broker itself knows, for waits that must hold on every broker (a node
// restarted a moment ago may still lag behind the metadata log).
func (c *Client) PartitionsAt(ctx context.Context, id int32, topics ...string) ([]Partition, error) {
	resp, err := c.metadataAt(ctx, id, metadataRequest(topics))
	if err != nil {
		return nil, err
	}
	return partitions(resp)
}

// BrokersAt returns the registered, unfenced brokers as broker id itself
// sees them; an error when it does not answer.
func (c *Client) BrokersAt(ctx context.Context, id int32) ([]int32, error) {
	resp, err := c.metadataAt(ctx, id, kmsg.NewPtrMetadataRequest())
	if err != nil {
		return nil, err
	}
	return brokerIDs(resp), nil
}

// metadataAt sends req to broker id only, for at most a second. When the
// client does not know the broker's address yet, it learns it from any
// broker first.
func (c *Client) metadataAt(ctx context.Context, id int32, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, error) {
	ask := func() (kmsg.Response, error) {
		bctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		return c.cl.Broker(int(id)).Request(bctx, req)
	}
	resp, err := ask()
	if err != nil && strings.Contains(err.Error(), "unknown broker") {
		lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, lerr := kmsg.NewPtrMetadataRequest().RequestWith(lctx, c.cl)
		cancel()
		if lerr != nil {
			return nil, fmt.Errorf("broker %d: learning its address: %w", id, lerr)
		}
		resp, err = ask()
	}
	if err != nil {
		return nil, fmt.Errorf("broker %d: %w", id, err)
	}
	return resp.(*kmsg.MetadataResponse), nil
}

// Brokers returns the ids of the registered, unfenced brokers, asking the
// given brokers in turn (any broker when none are given).
func (c *Client) Brokers(ctx context.Context, from ...int32) ([]int32, error) {
	resp, err := c.metadata(ctx, from, kmsg.NewPtrMetadataRequest())
	if err != nil {
		return nil, err
	}
	return brokerIDs(resp), nil
}

func brokerIDs(resp *kmsg.MetadataResponse) []int32 {
	var out []int32
	for _, b := range resp.Brokers {
		out = append(out, b.NodeID)
	}
	slices.Sort(out)
	return out
}

// errName is the Kafka name of an error (NOT_ENOUGH_REPLICAS), or its text.
func errName(err error) string {
	if ke, ok := err.(*kerr.Error); ok {
		return ke.Message
	}
	return err.Error()
}

// metadataRequest asks for the metadata of topics; of every topic when
// none are given.
func metadataRequest(topics []string) *kmsg.MetadataRequest {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	return req
}
