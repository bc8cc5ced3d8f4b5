package local_test

import (
	"os"
	"testing"

	"github.com/kafkabook/kafkabook/internal/powerfs"
)

// TestMain lets the test binary serve the power-loss layer of the clusters
// its tests start, as the kafkabook binary does: the backend starts each
// layer with os.Executable, here this test binary.
func TestMain(m *testing.M) {
	if powerfs.Serving() {
		os.Exit(powerfs.Serve())
	}
	os.Exit(m.Run())
}
