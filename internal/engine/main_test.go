package engine

import (
	"os"
	"testing"

	"github.com/kafkabook/kafkabook/internal/subcommand"
)

// TestMain lets the test binary run consumer group members, as the
// kafkabook binary does: the engine starts members with os.Executable.
func TestMain(m *testing.M) {
	subcommand.Run(os.Args) // the client processes kafkabook starts from os.Executable
	os.Exit(m.Run())
}
