package testcluster

import (
	"os"
	"testing"
)

// The suite has two tiers. `make test`, which every change runs and CI
// calls, proves every claim once: unit tests, every directive, every
// backend through the shared fault table, every client through its
// conformance table, the checker against an independent reader, and a few
// examples end to end. `make test-full` sets KAFKABOOK_TEST_TIER=full and
// adds what only a release needs: every other example, more examples on
// Kubernetes and the external backend, the fault table on the power-loss
// layer, longer fuzzing and the benchmarks' smoke runs.
//
// The tier is an environment variable rather than a build tag so that the
// full tier's tests are compiled, vetted and listed by every build; a test
// of the full tier says so when the fast tier leaves it out.

// TierEnv is the environment variable that selects the full tier.
const TierEnv = "KAFKABOOK_TEST_TIER"

// Full reports whether the full tier runs (make test-full).
func Full() bool { return os.Getenv(TierEnv) == "full" }

// FullTier leaves the test out of the fast tier, naming the target that
// runs it. This is a choice of tier, not a missing prerequisite, so it
// skips under CI=true too.
func FullTier(t testing.TB) {
	t.Helper()
	if !Full() {
		t.Skipf("full tier only (make test-full, %s=full)", TierEnv)
	}
}
