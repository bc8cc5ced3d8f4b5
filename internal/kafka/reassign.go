package kafka

import (
	"context"
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
)

// The throttle settings kafka-reassign-partitions.sh --throttle sets: a
// rate on every broker, and on the topic the replicas it applies to.
var (
	throttleRates    = []string{"leader.replication.throttled.rate", "follower.replication.throttled.rate"}
	throttleReplicas = []string{"leader.replication.throttled.replicas", "follower.replication.throttled.replicas"}
)

// Reassign asks the controller to move topic's partitions to replicas
// (partition i to replicas[i]), as kafka-reassign-partitions.sh --execute
// does; with a throttle (bytes a second, 0 none) it first limits the
// replication of the topic's replicas on every broker in brokers to it.
func (c *Client) Reassign(ctx context.Context, topic string, replicas [][]int32, throttle int64, brokers []int32) error {
	adm := kadm.NewClient(c.cl)
	if throttle > 0 {
		if err := c.throttle(ctx, adm, topic, brokers, strconv.FormatInt(throttle, 10)); err != nil {
			return err
		}
	}
	var req kadm.AlterPartitionAssignmentsReq
	for p, r := range replicas {
		req.Assign(topic, int32(p), r)
	}
	resp, err := adm.AlterPartitionAssignments(ctx, req)
	if err != nil {
		return fmt.Errorf("reassigning %s: %w", topic, err)
	}
	var first error
	resp.Each(func(r kadm.AlterPartitionAssignmentsResponse) {
		if r.Err != nil && first == nil {
			first = fmt.Errorf("reassigning %s partition %d: %w (%s)", topic, r.Partition, r.Err, r.ErrMessage)
		}
	})
	return first
}

// Reassigning lists the topic's partitions with a reassignment in
// progress, with the replicas each is adding and removing.
func (c *Client) Reassigning(ctx context.Context, topic string) ([]kadm.ListPartitionReassignmentsResponse, error) {
	adm := kadm.NewClient(c.cl)
	set := kadm.TopicsSet{}
	md, err := adm.Metadata(ctx, topic)
	if err != nil {
		return nil, err
	}
	for _, t := range md.Topics {
		for _, p := range t.Partitions {
			set.Add(topic, p.Partition)
		}
	}
	resp, err := adm.ListPartitionReassignments(ctx, set)
	if err != nil {
		return nil, fmt.Errorf("listing the reassignments of %s: %w", topic, err)
	}
	var out []kadm.ListPartitionReassignmentsResponse
	resp.Each(func(r kadm.ListPartitionReassignmentsResponse) { out = append(out, r) })
	return out, nil
}

// Unthrottle removes what a throttled Reassign set, as
// kafka-reassign-partitions.sh --verify does once it is done: the topic's
// throttled replicas, and the rates of brokers (none when nil: another
// throttled move still needs them).
func (c *Client) Unthrottle(ctx context.Context, topic string, brokers []int32) error {
	return c.throttle(ctx, kadm.NewClient(c.cl), topic, brokers, "")
}

// throttle sets (rate != "") or deletes the throttle's settings.
func (c *Client) throttle(ctx context.Context, adm *kadm.Client, topic string, brokers []int32, rate string) error {
	op, star := kadm.SetConfig, "*"
	if rate == "" {
		op, star = kadm.DeleteConfig, ""
	}
	var topicCfgs []kadm.AlterConfig
	for _, k := range throttleReplicas {
		topicCfgs = append(topicCfgs, kadm.AlterConfig{Op: op, Name: k, Value: ptr(star)})
	}
	if rs, err := adm.AlterTopicConfigs(ctx, topicCfgs, topic); err != nil {
		return fmt.Errorf("throttling %s: %w", topic, err)
	} else if err := firstAlterErr(rs); err != nil {
		return fmt.Errorf("throttling %s: %w", topic, err)
	}
	if len(brokers) == 0 {
		return nil
	}
	var brokerCfgs []kadm.AlterConfig
	for _, k := range throttleRates {
		brokerCfgs = append(brokerCfgs, kadm.AlterConfig{Op: op, Name: k, Value: ptr(rate)})
	}
	if rs, err := adm.AlterBrokerConfigs(ctx, brokerCfgs, brokers...); err != nil {
		return fmt.Errorf("throttling the brokers: %w", err)
	} else if err := firstAlterErr(rs); err != nil {
		return fmt.Errorf("throttling the brokers: %w", err)
	}
	return nil
}

func firstAlterErr(rs kadm.AlterConfigsResponses) error {
	for _, r := range rs {
		if r.Err != nil {
			return fmt.Errorf("%s: %w (%s)", r.Name, r.Err, r.ErrMessage)
		}
	}
	return nil
}

func ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
