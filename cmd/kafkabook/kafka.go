package main

import (
	"fmt"

	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/spf13/cobra"
)

func kafkaCmd() *cobra.Command {
	c := &cobra.Command{Use: "kafka", Short: "Manage Kafka distributions", Args: cobra.ArbitraryArgs, RunE: group}
	var version string
	install := &cobra.Command{
		Use:   "install",
		Short: "Fetch Kafka's jars from Maven Central (or use KAFKA_HOME) and print where they are",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := kafkadist.Install(cmd.Context(), version, progress(cmd))
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Kafka %s (%s): %s\n", d.Version, d.Source, d.Libs)
			return nil
		},
	}
	install.Flags().StringVar(&version, "kafka", kafkadist.Default, "Kafka version (4.0.0 to 4.4.0)")
	c.AddCommand(install)
	return c
}
