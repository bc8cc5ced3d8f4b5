package kafka

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Coordinator kinds of FindCoordinator.
const (
	CoordinatorGroup = "group"
	CoordinatorTxn   = "txn"
)

// Coordinator asks the cluster (FindCoordinator) for the broker id of the
// group coordinator of a group, or the transaction coordinator of a
// transactional id, asking the first of brokers that answers (any broker
// when none are given). A coordinator's partition of __consumer_offsets or
// __transaction_state may still be getting a leader (the topic is created
// on first use, and moves after a broker dies): COORDINATOR_NOT_AVAILABLE
// is retried for up to limit.
func (c *Client) Coordinator(ctx context.Context, brokers []int32, kind, key string, limit time.Duration) (int32, error) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorKey = key // up to v3
	req.CoordinatorKeys = []string{key}
	if kind == CoordinatorTxn {
		req.CoordinatorType = 1
	}
	var id int32 = -1
	err := poll.Until(ctx, 250*time.Millisecond, limit, nil, func(ctx context.Context) (bool, string, error) {
		resp, err := c.askFirst(ctx, brokers, req)
		if err != nil {
			return false, fmt.Sprintf("no %s coordinator of %s yet: %v", kind, key, err), nil
		}
		r := resp.(*kmsg.FindCoordinatorResponse)
		node, code := r.NodeID, r.ErrorCode
		for _, k := range r.Coordinators { // v4 and later
			if k.Key == key {
				node, code = k.NodeID, k.ErrorCode
			}
		}
		if err := kerr.ErrorForCode(code); err != nil {
			return false, fmt.Sprintf("no %s coordinator of %s yet: %v", kind, key, err), nil
		}
		id = node
		return true, "", nil
	})
	if err != nil {
		return -1, fmt.Errorf("finding the %s coordinator of %s: %w", kind, key, err)
	}
	return id, nil
}
