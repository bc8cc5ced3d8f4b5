package engine

import (
	"os"
	"testing"

	"github.com/kafkabook/kafkabook/internal/consumer"
	"github.com/kafkabook/kafkabook/internal/relay"
)

// TestMain lets the test binary run consumer group members, as the
// kafkabook binary does: the engine starts members with os.Executable.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == consumer.Subcommand {
		os.Exit(consumer.Main(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == relay.Subcommand { // and relays, in a Kubernetes client pod
		os.Exit(relay.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}
