package main

import (
	"fmt"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster/docker"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/spf13/cobra"
)

func imageCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "image",
		Short: "Build Kafka images for the docker backend without a container registry",
		Args:  cobra.ArbitraryArgs,
		RunE:  group,
	}
	var version string
	var force bool
	build := &cobra.Command{
		Use:   "build",
		Short: "Build kafkabook/kafka:VERSION on this Docker host from Debian (debootstrap) and Kafka's jars (Maven Central)",
		Long: `Build makes the image kafkabook/kafka:VERSION on this Docker host, an
equivalent of apache/kafka:VERSION for hosts that reach no container
registry: a Debian bookworm root file system with openjdk-17-jre-headless
(and iptables, procps and python3 for the Kubernetes backend's pods),
made with debootstrap (needs root and the debootstrap package) and cached
as a tarball under ~/.cache/kafkabook/docker, imported as kafkabook/base,
plus a layer with Kafka's jars from Maven Central (as 'kafkabook kafka
install' fetches them). The image reads the same KAFKA_* variables as
apache/kafka, so compose.yaml runs either. An image built from the same
inputs is kept unless --force.

The docker backend uses it when apache/kafka:VERSION is not on the host,
or when named with --image.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			start := time.Now()
			res, err := docker.BuildImage(cmd.Context(), version, force, progress(cmd))
			if err != nil {
				return err
			}
			what := "is up to date"
			if res.Rebuilt {
				what = fmt.Sprintf("built in %.1fs", time.Since(start).Seconds())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s (%s, %d MB)\n", res.Image, what, res.ID, res.Size>>20)
			return nil
		},
	}
	build.Flags().StringVar(&version, "kafka", kafkadist.Default, "Kafka version")
	build.Flags().BoolVar(&force, "force", false, "rebuild even when an image from the same inputs exists")
	c.AddCommand(build)
	return c
}
