package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/results"
	"github.com/spf13/cobra"
)

// clientCmd manages the client drivers: the Java client, Spring Kafka and
// librdkafka, built on this machine into kafkabook's cache
// (docs/driver-protocol.md).
func clientCmd() *cobra.Command {
	c := &cobra.Command{Use: "client", Short: "Manage the Kafka clients kafkabook drives besides franz-go", Args: cobra.ArbitraryArgs, RunE: group}
	install := &cobra.Command{
		Use:   "install CLIENT[@VERSION]...",
		Short: "Build client drivers into the cache: java[@kafka-clients version], librdkafka[@confluent-kafka version], spring[@spring-kafka version]",
		Long: "Build client drivers into kafkabook's cache and print where they are.\n\n" +
			"java[@VERSION] resolves kafka-clients from Maven Central with mvn (default " + driver.DefaultJava + ") and\n" +
			"compiles the driver with javac (Debian: openjdk-17-jdk-headless, maven).\n" +
			"librdkafka[@VERSION] installs confluent-kafka for Python from PyPI into a virtual\n" +
			"environment (default " + driver.DefaultLibrdkafka + "; Debian: python3-venv); its wheel carries librdkafka.\n" +
			"spring[@VERSION] resolves spring-kafka (default " + driver.DefaultSpring + ") and compiles the java driver with\n" +
			"Spring Kafka's KafkaTemplate (producers) and listener container (consumer group members).",
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
	c.AddCommand(install, clientProduceCmd())
	return c
}

// clientProduceCmd produces through one driver outside any runbook: to try
// a client and its properties against a cluster, and for
// scripts/bench-produce.sh.
func clientProduceCmd() *cobra.Command {
	var spec driver.Spec
	var bootstrap, acks string
	var props []string
	var deliveryTimeout time.Duration
	c := &cobra.Command{
		Use:   "produce CLIENT[@VERSION]",
		Short: "Produce messages through one client driver and print its configuration and outcomes",
		Example: "  kafkabook client produce java@4.3.1 --bootstrap 10.0.0.1:9092 --topic t --count 100000 --size 100 -X linger.ms=5\n" +
			"  kafkabook client produce spring@4.1.2 --bootstrap 10.0.0.1:9092 --topic t --count 10 --acks all",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := driver.ParseRef(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			if bootstrap == "" || spec.Topic == "" {
				return usageErr("client produce needs --bootstrap and --topic")
			}
			spec.Bootstrap = strings.Split(bootstrap, ",")
			spec.Properties = make(map[string]string, len(props))
			for _, p := range props {
				k, v, ok := strings.Cut(p, "=")
				if !ok || k == "" {
					return usageErr("-X %q: want name=value, like -X linger.ms=5", p)
				}
				spec.Properties[k] = v
			}
			// The shorthands are properties, as produce's are.
			if acks != "" {
				spec.Properties["acks"] = acks
			}
			if deliveryTimeout > 0 {
				spec.Properties["delivery.timeout.ms"] = strconv.FormatInt(deliveryTimeout.Milliseconds(), 10)
			}
			d, err := driver.Install(cmd.Context(), ref, progress(cmd))
			if err != nil {
				return err
			}
			return clientProduce(cmd, d, spec)
		},
	}
	f := c.Flags()
	f.StringVar(&bootstrap, "bootstrap", "", "bootstrap servers, host:port,...")
	f.StringVar(&spec.Topic, "topic", "", "topic to produce to")
	f.IntVar(&spec.From, "from", 1, "number of the first message (m-001)")
	f.IntVar(&spec.Count, "count", 100, "messages to send")
	f.IntVar(&spec.Size, "size", 0, "value size in bytes; 0: the message id alone")
	f.StringVar(&acks, "acks", "", "0, 1 or all (the property acks); empty: the client's default")
	f.Float64Var(&spec.Rate, "rate", 0, "messages per second; 0: all at once")
	f.DurationVar(&deliveryTimeout, "delivery-timeout", 0, "delivery timeout per message (the property delivery.timeout.ms); 0: the client's default")
	f.StringArrayVarP(&props, "property", "X", nil, "client property by the client's own name, name=value (repeatable)")
	return c
}

// clientProduce runs the spec and prints the client, the settings that
// decide durability, and a summary of the outcomes.
func clientProduce(cmd *cobra.Command, d driver.Driver, spec driver.Spec) error {
	out := cmd.OutOrStdout()
	p, err := d.StartProducer(cmd.Context(), spec)
	if err != nil {
		return err
	}
	defer p.Close()
	st := p.Startup()
	fmt.Fprintf(out, "%s: %s; started in %v\n", d.Ref, st.Describe(), st.Took.Round(time.Millisecond))
	if len(st.Unknown) > 0 {
		fmt.Fprintf(out, "unknown to the client: %s\n", strings.Join(st.Unknown, ", "))
	}
	var lat results.LatencyRecorder
	count := map[results.Status]int{}
	errs := map[string]int{}
	var last time.Time
	stats, err := p.Run(cmd.Context(), func(r driver.Result) {
		count[r.Status]++
		if r.Status == results.StatusOK {
			lat.Add(r.Done.Sub(r.Intended))
		} else {
			errs[r.Err]++
		}
		if r.Done.After(last) {
			last = r.Done
		}
	})
	fmt.Fprintf(out, "%d sent: %d ok, %d failed, %d unknown", stats.Sent,
		count[results.StatusOK], count[results.StatusFailed], count[results.StatusUnknown])
	if took := last.Sub(stats.Start); !last.IsZero() && took > 0 {
		fmt.Fprintf(out, "; last outcome %v after the start (%.0f msg/s)", took.Round(time.Millisecond), float64(stats.Sent)/took.Seconds())
	}
	fmt.Fprintln(out)
	if pc := lat.Percentiles(); pc.Count > 0 {
		fmt.Fprintf(out, "latency from intended send: p50 %v p99 %v max %v\n", pc.P50, pc.P99, pc.Max)
	}
	for e, n := range errs {
		fmt.Fprintf(out, "  %d × %s\n", n, e)
	}
	return err
}
