package netdelay

import (
	"os"
	"testing"
)

// TestMain lets the test binary be a delayer, as the kafkabook binary
// does: Command starts os.Executable, here this test binary.
func TestMain(m *testing.M) {
	if Serving() {
		os.Exit(Serve())
	}
	os.Exit(m.Run())
}
