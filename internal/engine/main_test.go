package engine

import (
	"os"
	"testing"

	"github.com/kafkabook/kafkabook/internal/consumer"
)

// TestMain lets the test binary run consumer group members, as the
// kafkabook binary does: the engine starts members with os.Executable.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == consumer.Subcommand {
		os.Exit(consumer.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}
