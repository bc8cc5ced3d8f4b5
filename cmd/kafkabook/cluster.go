package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/kafkabook/kafkabook/cluster"
	"github.com/kafkabook/kafkabook/cluster/local"
	"github.com/spf13/cobra"
)

// defaultCluster is the cluster every command acts on without --name.
const defaultCluster = "default"

func clusterCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "cluster",
		Short: "Start, hurt, heal and remove a local Kafka KRaft cluster",
	}
	var name string
	c.PersistentFlags().StringVar(&name, "name", defaultCluster, "cluster name")
	backend := func() (*local.Backend, error) {
		b, err := local.New(name)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		return b, nil
	}

	var cfg cluster.Config
	var sets []string
	up := &cobra.Command{
		Use:   "up",
		Short: "Start N combined broker+controller nodes k1..kN and wait until every broker is ready",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := backend()
			if err != nil {
				return err
			}
			cfg.Name = name
			if cfg.Broker, err = parseSets(sets); err != nil {
				return err
			}
			st, err := b.Up(cmd.Context(), cfg, progress)
			if err != nil {
				return err
			}
			printStatus(st)
			fmt.Printf("\nbootstrap: %s\n", strings.Join(st.Bootstrap(), ","))
			return nil
		},
	}
	up.Flags().StringVar(&cfg.Kafka, "kafka", local.DefaultKafka, "Kafka version")
	up.Flags().IntVar(&cfg.Nodes, "nodes", 3, "number of nodes")
	up.Flags().StringArrayVar(&sets, "set", nil, "server.properties override KEY=VALUE for every node (repeatable)")

	var asJSON bool
	status := &cobra.Command{
		Use:   "status",
		Short: "List the nodes: name, id, address, state, pid",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := backend()
			if err != nil {
				return err
			}
			st, err := b.Status(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			printStatus(st)
			return nil
		},
	}
	status.Flags().BoolVar(&asJSON, "json", false, "print JSON (see docs/cluster-status.md)")

	down := &cobra.Command{
		Use:   "down",
		Short: "Remove everything the cluster created: JVMs, namespaces, links, data",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := backend()
			if err != nil {
				return err
			}
			// Finish removing even after Ctrl-C.
			if err := b.Down(context.WithoutCancel(cmd.Context()), progress); err != nil {
				return err
			}
			fmt.Printf("cluster %s is down\n", name)
			return nil
		},
	}

	var grep string
	logs := &cobra.Command{
		Use:   "logs NODE",
		Short: "Print a node's broker log",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := backend()
			if err != nil {
				return err
			}
			var re *regexp.Regexp
			if grep != "" {
				if re, err = regexp.Compile(grep); err != nil {
					return usageErr("--grep: %v", err)
				}
			}
			r, err := b.Logs(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer r.Close()
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			w := bufio.NewWriter(os.Stdout)
			defer w.Flush()
			for sc.Scan() {
				if re == nil || re.Match(sc.Bytes()) {
					w.Write(sc.Bytes())
					w.WriteByte('\n')
				}
			}
			return sc.Err()
		},
	}
	logs.Flags().StringVar(&grep, "grep", "", "only lines matching this regular expression")

	c.AddCommand(up, status, down, logs)
	for _, op := range cluster.Ops {
		c.AddCommand(&cobra.Command{
			Use:   string(op) + " NODE...",
			Short: opHelp[op],
			Args:  minArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				b, err := backend()
				if err != nil {
					return err
				}
				if err := b.Apply(cmd.Context(), op, args, progress); err != nil {
					return err
				}
				fmt.Printf("%s %s\n", op, strings.Join(args, " "))
				return nil
			},
		})
	}
	return c
}

var opHelp = map[cluster.Op]string{
	cluster.Kill:    "SIGKILL the nodes' JVMs",
	cluster.Stop:    "Shut the nodes down gracefully (SIGTERM) and wait",
	cluster.Start:   "Restart stopped or killed nodes on their existing data",
	cluster.Pause:   "Freeze the nodes' JVMs (SIGSTOP)",
	cluster.Resume:  "Thaw paused nodes (SIGCONT)",
	cluster.Isolate: "Cut the nodes off from every other node and from the host",
	cluster.Rejoin:  "Put isolated nodes back on the network, same address",
}

// parseSets turns KEY=VALUE flags into a map.
func parseSets(sets []string) (map[string]string, error) {
	m := map[string]string{}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, usageErr("--set %q: want KEY=VALUE, e.g. replica.lag.time.max.ms=3000", s)
		}
		m[k] = v
	}
	return m, nil
}

func printStatus(st cluster.Status) {
	fmt.Printf("cluster %s: Kafka %s, %s backend\n", st.Name, st.Kafka, st.Backend)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NODE\tID\tADDRESS\tSTATE\tPID")
	for _, n := range st.Nodes {
		pid := "-"
		if n.PID > 0 {
			pid = fmt.Sprint(n.PID)
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\n", n.Name, n.ID, n.Address, n.State, pid)
	}
	w.Flush()
}
