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

// ElectLeaders asks the controller for an election of topic's partitions:
// of the preferred replica,
// or, with unclean, of a live replica of a partition that has no leader
// and no in-sync replica left, as kafka-leader-election.sh
// --election-type UNCLEAN does. It returns each partition's answer: ""
// for an election held, the name of the controller's error otherwise
// (ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE,
// ELIGIBLE_LEADERS_NOT_AVAILABLE), with its message.
func (c *Client) ElectLeaders(ctx context.Context, topic string, partitions []int32, unclean bool) (map[int32]string, error) {
	how := kadm.ElectPreferredReplica
	if unclean {
		how = kadm.ElectLiveReplica
	}
	set := kadm.TopicsSet{}
	set.Add(topic, partitions...)
	rs, err := kadm.NewClient(c.cl).ElectLeaders(ctx, how, set)
	if err != nil {
		return nil, err
	}
	out := map[int32]string{}
	for _, r := range rs[topic] {
		switch {
		case r.Err == nil:
			out[r.Partition] = ""
		case r.ErrMessage != "":
			out[r.Partition] = errName(r.Err) + ": " + r.ErrMessage
		default:
			out[r.Partition] = errName(r.Err)
		}
	}
	return out, nil
}
