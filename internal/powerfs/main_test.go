package powerfs

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve layers, as the kafkabook binary
// does: Command starts os.Executable, here this test binary.
func TestMain(m *testing.M) {
	if Serving() {
		os.Exit(Serve())
	}
	os.Exit(m.Run())
}
