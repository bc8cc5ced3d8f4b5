// Package subcommand runs the kafkabook binary's hidden roles: the client
// processes kafkabook starts from its own binary (franz-go's driver: a
// producer, or a consumer group or transform member) and the relay that runs them in a Kubernetes
// pod. kafkabook's main and every test binary that stands in for kafkabook
// (os.Executable) dispatch through Run, so that the roles are one list.
package subcommand

import (
	"os"

	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/relay"
)

// Run runs the role args[1] names, if it names one, and exits with its
// exit code; otherwise it returns.
func Run(args []string) {
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
