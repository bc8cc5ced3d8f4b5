// Package subcommand runs the kafkabook binary's hidden roles: the client
// processes kafkabook starts from its own binary (a consumer group member,
// franz-go's producer driver) and the relay that runs them in a Kubernetes
// pod. kafkabook's main and every test binary that stands in for kafkabook
// (os.Executable) dispatch through Run, so that the roles are one list.
package subcommand

import (
	"os"

	"github.com/kafkabook/kafkabook/internal/consumer"
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
	case consumer.Subcommand: // a process of its own, so that crash consumer is a real SIGKILL
		os.Exit(consumer.Main(args[2:]))
	case driver.FranzGoSubcommand:
		os.Exit(driver.FranzGoMain(os.Stdin, os.Stdout))
	case relay.Subcommand: // a connection or a client process relayed from a pod
		os.Exit(relay.Main(args[2:]))
	}
}
