package kafka

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TransactionVersion is the feature that names the transaction protocol
// a cluster speaks (KIP-890): 0 and 1 the classic protocol, 2 the one
// that bumps the producer epoch on every transaction and lets the broker
// verify a partition is in the transaction before it appends to it.
const TransactionVersion = "transaction.version"

// FinalizedFeatures asks the cluster for its finalized features (KIP-584)
// by name, at their finalized level: what the controller quorum decided
// for the whole cluster (metadata.version, transaction.version,
// group.version, ...), as the ApiVersions response carries them from
// version 3 on. A feature the cluster never finalized is absent; a cluster
// too old to say returns an error naming the version it answered with.
func (c *Client) FinalizedFeatures(ctx context.Context) (map[string]int16, error) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kafkabook", "1"
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return nil, fmt.Errorf("asking the cluster for its features (ApiVersions): %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, fmt.Errorf("asking the cluster for its features (ApiVersions): %w", err)
	}
	if resp.Version < 3 || resp.FinalizedFeaturesEpoch < 0 {
		return nil, fmt.Errorf("the cluster answered ApiVersions v%d with no finalized features (epoch %d): it predates KIP-584's features in KRaft", resp.Version, resp.FinalizedFeaturesEpoch)
	}
	out := make(map[string]int16, len(resp.FinalizedFeatures))
	for _, f := range resp.FinalizedFeatures {
		out[f.Name] = f.MaxVersionLevel
	}
	return out, nil
}
