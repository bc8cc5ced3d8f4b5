package docker_test

import (
	"os"
	"testing"

	"github.com/kafkabook/kafkabook/internal/netdelay"
)

// TestMain lets the test binary serve the link delayers of the clusters
// its tests start, as the kafkabook binary does: the backend starts each
// with os.Executable, here this test binary.
func TestMain(m *testing.M) {
	if netdelay.Serving() {
		os.Exit(netdelay.Serve())
	}
	os.Exit(m.Run())
}
