package kafka

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkabook/kafkabook/internal/poll"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TopicSpec is a topic to create. Either Assignment (one replica list per
// partition, the first replica the preferred leader) or Partitions and
// ReplicationFactor.
type TopicSpec struct {
	Name              string
	Partitions        int32
	ReplicationFactor int16
	Assignment        [][]int32
	Configs           map[string]string
}

// CreateTopic creates the topic and waits until every partition has a
// leader, so the next step can produce at once.
func (c *Client) CreateTopic(ctx context.Context, spec TopicSpec) error {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 30000
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic = spec.Name
	if len(spec.Assignment) > 0 {
		t.NumPartitions, t.ReplicationFactor = -1, -1
		for i, replicas := range spec.Assignment {
			a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			a.Partition = int32(i)
			a.Replicas = replicas
			t.ReplicaAssignment = append(t.ReplicaAssignment, a)
		}
	} else {
		t.NumPartitions, t.ReplicationFactor = max(spec.Partitions, 1), spec.ReplicationFactor
		if t.ReplicationFactor == 0 {
			t.ReplicationFactor = -1
		}
	}
	for k, v := range spec.Configs {
		cfg := kmsg.NewCreateTopicsRequestTopicConfig()
		cfg.Name, cfg.Value = k, kmsg.StringPtr(v)
		t.Configs = append(t.Configs, cfg)
	}
	req.Topics = append(req.Topics, t)
	cctx, cancel := context.WithTimeout(ctx, 35*time.Second)
	defer cancel()
	resp, err := req.RequestWith(cctx, c.cl)
	if err != nil {
		return fmt.Errorf("create topic %s: %w", spec.Name, err)
	}
	for _, rt := range resp.Topics {
		if err := kerr.ErrorForCode(rt.ErrorCode); err != nil {
			msg := errName(err)
			if rt.ErrorMessage != nil {
				msg += ": " + *rt.ErrorMessage
			}
			return fmt.Errorf("create topic %s: %s", spec.Name, msg)
		}
	}
	// Wait for leaders.
	return poll.Until(ctx, 50*time.Millisecond, 30*time.Second, nil, func(ctx context.Context) (bool, string, error) {
		parts, err := c.Partitions(ctx, spec.Name)
		ready := err == nil && len(parts) > 0
		for _, p := range parts {
			if p.Leader < 0 || p.Err != "" {
				ready = false
			}
		}
		return ready, fmt.Sprintf("create topic %s: waiting for leaders (%v)", spec.Name, parts), nil
	})
}

// Topics lists the names of the cluster's topics, internal ones left out.
func (c *Client) Topics(ctx context.Context) ([]string, error) {
	resp, err := c.metadata(ctx, nil, kmsg.NewPtrMetadataRequest())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range resp.Topics {
		if t.Topic != nil && !t.IsInternal {
			out = append(out, *t.Topic)
		}
	}
	return out, nil
}

// DeleteTopics deletes the named topics; one that is already gone is no
// error.
func (c *Client) DeleteTopics(ctx context.Context, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = 30000
	for _, n := range names {
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.Topic = kmsg.StringPtr(n)
		req.Topics = append(req.Topics, t)
		req.TopicNames = append(req.TopicNames, n)
	}
	ctx, cancel := context.WithTimeout(ctx, 35*time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return fmt.Errorf("delete topics: %w", err)
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil && err != kerr.UnknownTopicOrPartition {
			name := ""
			if t.Topic != nil {
				name = *t.Topic
			}
			return fmt.Errorf("delete topic %s: %w", name, err)
		}
	}
	return nil
}
