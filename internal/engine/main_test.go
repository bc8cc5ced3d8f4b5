package engine

import (
	"os"
	"testing"

	"github.com/kafkabook/kafkabook/internal/subcommand"
	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// TestMain lets the test binary run consumer group members, link
// delayers and power-loss layers, as the kafkabook binary does: the
// engine starts members, and the local backend delayers and layers, with
// os.Executable. testcluster.Main takes
// down the clusters the tests shared.
func TestMain(m *testing.M) {
	subcommand.Run(os.Args) // the processes kafkabook starts from os.Executable: clients, layers, delayers
	os.Exit(testcluster.Main(m))
}
