package engine_test

import (
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

// The engine's tests share two clusters (testcluster.Shared): each run
// isolates itself by the suffix the engine gives its topics, groups and
// transactional ids, and the engine heals the cluster before every run.
//
// threeNodes is the union of what the three-node tests need: followers
// that leave the ISR 3 s after they stop fetching (the acks article's
// setting: TestChecker, TestClientConformance), and consumer-protocol
// sessions of 6 s (the new protocol's session is the broker's, 45 s by
// default and no shorter unless its minimum is lowered too:
// TestConsumerConformance). The other tests set none of these and
// depend on none of them.
var threeNodes = map[string]string{
	"replica.lag.time.max.ms":               "3000",
	"group.consumer.min.session.timeout.ms": "6000",
	"group.consumer.session.timeout.ms":     "6000",
}

// sharedThree is the package's three-node cluster, healed.
func sharedThree(t *testing.T) (*local.Backend, cluster.Status) {
	t.Helper()
	return testcluster.Shared(t, 3, threeNodes)
}

// sharedOne is the package's one-node cluster, healed: the transaction,
// transform and shell tests need no replication.
func sharedOne(t *testing.T) (*local.Backend, cluster.Status) {
	t.Helper()
	return testcluster.Shared(t, 1, nil)
}

// allHeld reports every expectation of run that did not hold, with its
// position and the value measured.
func allHeld(t *testing.T, run results.Run) {
	t.Helper()
	for _, e := range run.Expectations {
		if !e.Held {
			t.Errorf("%s: %s did not hold: the value was %s", e.Pos, e.Expr, e.Actual)
		}
	}
}
