package kafka

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/twmb/franz-go/pkg/kadm"
)

// Coordinator kinds of FindCoordinator.
const (
	CoordinatorGroup = "group"
	CoordinatorTxn   = "txn"
)

// Coordinator asks the cluster (FindCoordinator) for the broker id of the
// group coordinator of a group, or the transaction coordinator of a
// transactional id. A coordinator's partition of __consumer_offsets or
// __transaction_state may still be getting a leader (the topic is created
// on first use, and moves after a broker dies): COORDINATOR_NOT_AVAILABLE
// is retried for up to limit.
func (c *Client) Coordinator(ctx context.Context, kind, key string, limit time.Duration) (int32, error) {
	adm := kadm.NewClient(c.cl)
	var id int32 = -1
	err := poll.Until(ctx, 250*time.Millisecond, limit, nil, func(ctx context.Context) (bool, string, error) {
		var rs kadm.FindCoordinatorResponses
		if kind == CoordinatorTxn {
			rs = adm.FindTxnCoordinators(ctx, key)
		} else {
			rs = adm.FindGroupCoordinators(ctx, key)
		}
		r, ok := rs[key]
		if !ok || r.Err != nil {
			return false, fmt.Sprintf("no %s coordinator of %s yet: %v", kind, key, r.Err), nil
		}
		id = r.NodeID
		return true, "", nil
	})
	if err != nil {
		return -1, fmt.Errorf("finding the %s coordinator of %s: %w", kind, key, err)
	}
	return id, nil
}
