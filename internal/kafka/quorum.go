package kafka

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// metadataLog is the KRaft quorum's log, whose leader is the active
// controller.
const metadataLog = "__cluster_metadata"

// ActiveController asks the cluster which node is the active controller:
// the leader of the metadata log, from DescribeQuorum (KIP-595), which a
// broker forwards to the controllers. A metadata response's controller id
// will not do: in KRaft a broker names a random live broker there.
func (c *Client) ActiveController(ctx context.Context) (int32, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = metadataLog
	p := kmsg.NewDescribeQuorumRequestTopicPartition()
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return -1, fmt.Errorf("asking for the controller quorum (DescribeQuorum): %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return -1, fmt.Errorf("asking for the controller quorum (DescribeQuorum): %w", err)
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return -1, fmt.Errorf("the controller quorum (DescribeQuorum): %w", err)
			}
			if p.LeaderID < 0 {
				return -1, fmt.Errorf("the controller quorum has no leader now (epoch %d)", p.LeaderEpoch)
			}
			return p.LeaderID, nil
		}
	}
	return -1, fmt.Errorf("the controller quorum (DescribeQuorum) answered without the metadata log")
}

// UnregisterBroker removes broker id's registration from the controller,
// as kafka-cluster.sh unregister does once a broker is gone for good
// (KIP-1073): the controller then no longer lists it.
func (c *Client) UnregisterBroker(ctx context.Context, id int32) error {
	req := kmsg.NewPtrUnregisterBrokerRequest()
	req.BrokerID = id
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return fmt.Errorf("unregistering broker %d: %w", id, err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		msg := ""
		if resp.ErrorMessage != nil {
			msg = " (" + *resp.ErrorMessage + ")"
		}
		return fmt.Errorf("unregistering broker %d: %w%s", id, err, msg)
	}
	return nil
}
