package engine

import (
	"os"
	"testing"

	"github.com/kafkabook/kafkabook/internal/netdelay"
	"github.com/kafkabook/kafkabook/internal/subcommand"
	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// TestMain lets the test binary run consumer group members and link
// delayers, as the kafkabook binary does: the engine starts members, and
// the local backend delayers, with os.Executable. testcluster.Main takes
// down the clusters the tests shared.
func TestMain(m *testing.M) {
	subcommand.Run(os.Args) // the client processes kafkabook starts from os.Executable
	if netdelay.Serving() { // the link delayers of its clusters
		os.Exit(netdelay.Serve())
	}
	os.Exit(testcluster.Main(m))
}
