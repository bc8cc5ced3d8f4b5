// Package subcommand runs the kafkabook binary's hidden roles: the client
// processes kafkabook starts from its own binary (franz-go's driver: a
// producer, or a consumer group or transform member), the relay that runs
// them in a Kubernetes pod, a node's power-loss layer, a node's link
// delayer, and the corruption of a stopped node's segment where only a
// pod reaches its log directory (Kubernetes). kafkabook's main and every test binary that stands in for
// kafkabook (os.Executable) dispatch through Run, so that the roles are
// one list.
package subcommand

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/kafkabook/kafkabook/internal/cluster"
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
	case cluster.CorruptSubcommand: // LOGDIR NODE CORRUPTION-JSON: a segment damaged in a pod
		os.Exit(corrupt(args[2:]))
	}
}

// corrupt runs cluster.CorruptLogDir on this machine's (this pod's) log
// directory and prints what it did as JSON, for the backend that copied
// this binary here (the kubernetes backend's Corrupt).
func corrupt(args []string) int {
	var c cluster.Corruption
	if len(args) != 3 || json.Unmarshal([]byte(args[2]), &c) != nil {
		fmt.Fprintf(os.Stderr, "usage: kafkabook %s LOGDIR NODE CORRUPTION-JSON\n", cluster.CorruptSubcommand)
		return 2
	}
	done, err := cluster.CorruptLogDir(args[0], args[1], c)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out, _ := json.Marshal(done) // strings and numbers always encode
	fmt.Println(string(out))
	return 0
}
