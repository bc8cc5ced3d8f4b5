package docker_test

import (
	"os"
	"testing"

	"github.com/kafkabook/kafkabook/internal/subcommand"
)

// TestMain lets the test binary serve the link delayers of the clusters
// its tests start, as the kafkabook binary does: the backend starts each
// with os.Executable, here this test binary.
func TestMain(m *testing.M) {
	subcommand.Run(os.Args)
	os.Exit(m.Run())
}
