package kafka

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// metadataLog is the KRaft quorum's log, whose leader is the active
// controller.
const metadataLog = "__cluster_metadata"

// Quorum is the KRaft controller quorum as DescribeQuorum (KIP-595, with
// directory ids since KIP-853) answers it.
type Quorum struct {
	Leader int32   // the active controller; -1 when there is none
	Epoch  int32   // the leader's epoch
	Voters []Voter // the voters, in the order answered
}

// Voter is one voter of the metadata log: its node id and its metadata
// directory's id (KIP-853: "" on a static quorum).
type Voter struct {
	ID          int32
	DirectoryID string
}

// VoterIDs are the voters' node ids, sorted.
func (q Quorum) VoterIDs() []int32 {
	ids := make([]int32, len(q.Voters))
	for i, v := range q.Voters {
		ids[i] = v.ID
	}
	slices.Sort(ids)
	return ids
}

// Voter is the voter with node id, if it is one.
func (q Quorum) Voter(id int32) (Voter, bool) {
	for _, v := range q.Voters {
		if v.ID == id {
			return v, true
		}
	}
	return Voter{}, false
}

// DescribeQuorum asks the cluster for its controller quorum; a broker
// forwards the request to the controllers.
func (c *Client) DescribeQuorum(ctx context.Context) (Quorum, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = metadataLog
	p := kmsg.NewDescribeQuorumRequestTopicPartition()
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return Quorum{}, fmt.Errorf("asking for the controller quorum (DescribeQuorum): %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return Quorum{}, fmt.Errorf("asking for the controller quorum (DescribeQuorum): %w", err)
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return Quorum{}, fmt.Errorf("the controller quorum (DescribeQuorum): %w", err)
			}
			q := Quorum{Leader: p.LeaderID, Epoch: p.LeaderEpoch}
			for _, v := range p.CurrentVoters {
				q.Voters = append(q.Voters, voterOf(v))
			}
			return q, nil
		}
	}
	return Quorum{}, fmt.Errorf("the controller quorum (DescribeQuorum) answered without the metadata log")
}

func voterOf(v kmsg.DescribeQuorumResponseTopicPartitionReplicaState) Voter {
	out := Voter{ID: v.ReplicaID}
	if v.ReplicaDirectoryID != ([16]byte{}) {
		out.DirectoryID = base64.RawURLEncoding.EncodeToString(v.ReplicaDirectoryID[:])
	}
	return out
}

// ActiveController is the leader of the metadata log, which is the
// active controller. A metadata response's controller id will not do: in
// KRaft a broker names a random live broker there.
func (c *Client) ActiveController(ctx context.Context) (int32, error) {
	q, err := c.DescribeQuorum(ctx)
	if err != nil {
		return -1, err
	}
	if q.Leader < 0 {
		return -1, fmt.Errorf("the controller quorum has no leader now (epoch %d)", q.Epoch)
	}
	return q.Leader, nil
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
