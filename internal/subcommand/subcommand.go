// Package subcommand runs the kafkabook binary's hidden roles: the client
// processes kafkabook starts from its own binary (franz-go's driver: a
// producer, or a consumer group or transform member), the relay that runs
// them in a Kubernetes pod, a node's power-loss layer and a node's link
// delayer. kafkabook's main and every test binary that stands in for
// kafkabook (os.Executable) dispatch through Run, so that the roles are
// one list.
package subcommand

import (
	"os"

	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/netdelay"
	"github.com/kafkabook/kafkabook/internal/powerfs"
	"github.com/kafkabook/kafkabook/internal/relay"
)

// Run runs the role args[1] names, if it names one, and exits with its
// exit code; otherwise it returns.
func Run(args []string) {
	// A node's power-loss layer: a process of its own, so that a power
	// loss kills it with what it held in memory (package powerfs).
	if powerfs.Serving() {
		os.Exit(powerfs.Serve())
	}
	// A node's link delayer: a process in the node's network namespace
	// (package netdelay).
	if netdelay.Serving() {
		os.Exit(netdelay.Serve())
	}
	if len(args) < 2 {
		return
	}
	switch args[1] {
	case driver.FranzGoSubcommand: // franz-go's producer or member, a process of its own as every client's
		os.Exit(driver.FranzGoMain(os.Stdin, os.Stdout))
	case relay.Subcommand: // a connection or a client process relayed from a pod
		os.Exit(relay.Main(args[2:]))
	}
}
