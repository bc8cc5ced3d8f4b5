package main

import (
	"fmt"

	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/spf13/cobra"
)

// clientCmd manages the client drivers: the Java client and librdkafka,
// built on this machine into kafkabook's cache (docs/driver-protocol.md).
func clientCmd() *cobra.Command {
	c := &cobra.Command{Use: "client", Short: "Manage the Kafka clients kafkabook drives besides franz-go", Args: cobra.ArbitraryArgs, RunE: group}
	install := &cobra.Command{
		Use:   "install CLIENT[@VERSION]...",
		Short: "Build client drivers into the cache: java[@kafka-clients version], librdkafka[@confluent-kafka version]",
		Long: "Build client drivers into kafkabook's cache and print where they are.\n\n" +
			"java[@VERSION] resolves kafka-clients from Maven Central with mvn (default " + driver.DefaultJava + ") and\n" +
			"compiles the driver with javac (Debian: openjdk-17-jdk-headless, maven).\n" +
			"librdkafka[@VERSION] installs confluent-kafka for Python from PyPI into a virtual\n" +
			"environment (default " + driver.DefaultLibrdkafka + "; Debian: python3-venv); its wheel carries librdkafka.",
		Example: "  kafkabook client install java@4.3.1 librdkafka@2.15.1",
		Args:    minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			refs := make([]driver.Ref, len(args))
			for i, a := range args {
				r, err := driver.ParseRef(a)
				if err != nil {
					return usageErr("%v", err)
				}
				refs[i] = r
			}
			for _, r := range refs {
				d, err := driver.Install(cmd.Context(), r, progress(cmd))
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", d.Ref, d.Dir)
			}
			return nil
		},
	}
	c.AddCommand(install)
	return c
}
