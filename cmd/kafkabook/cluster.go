package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/kafkaconfig"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/backends"
	"github.com/kafkabook/kafkabook/internal/cluster/docker"
	"github.com/kafkabook/kafkabook/internal/cluster/external"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/spf13/cobra"
)

// defaultCluster is the cluster every command acts on without --name.
const defaultCluster = "default"

func clusterCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "cluster",
		Short: "Start, hurt, heal, list and remove Kafka KRaft clusters (local, docker or kubernetes)",
		Long: `Cluster commands act on a cluster of combined broker+controller nodes
k1..kN, run by one of two backends: local (a JVM per node in its own
network namespace; needs root) or docker (a container per node, shaped by
compose.yaml). Up uses --backend, else local where it can run, else docker;
the other commands find the named cluster's backend themselves.

With --backend external --cluster-file FILE (--cluster-file alone will
do) they act on a cluster kafkabook did not start: up checks that its
brokers answer, each fault runs the cluster file's command for it, logs
runs its logs command, status shows the state the last command left
(kafkabook cannot see the processes), and down removes nothing.
'cluster up --security sasl-ssl' writes such a file for a local cluster.`,
		Args: cobra.ArbitraryArgs,
		RunE: group,
		// Every cluster command first removes clusters that a killed run
		// left behind.
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			if cmd.Name() != "cluster" {
				reapAbandoned(cmd)
			}
		},
	}
	t := &clusterTarget{}
	c.PersistentFlags().StringVar(&t.name, "name", defaultCluster, "cluster name")
	t.bf.register(c.PersistentFlags(), false)
	c.AddCommand(clusterUpCmd(t), clusterStatusCmd(t), clusterListCmd(), clusterDownCmd(t), clusterLogsCmd(t))
	for _, f := range cluster.Faults {
		c.AddCommand(clusterOpCmd(t, f))
	}
	return c
}

// clusterTarget is the cluster the subcommands of cluster act on: --name
// and the backend flags, which are persistent flags of cluster.
type clusterTarget struct {
	name string
	bf   backendFlags
}

// backend is the backend of the existing cluster the flags name.
func (t *clusterTarget) backend(cmd *cobra.Command) (cluster.Backend, error) {
	return t.bf.forExisting(cmd.Context(), t.name)
}

func clusterUpCmd(t *clusterTarget) *cobra.Command {
	var cfg cluster.Config
	var sets []string
	up := &cobra.Command{
		Use:   "up",
		Short: "Start N combined broker+controller nodes k1..kN, wait until every broker is ready; it stays up until down",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := t.bf.forNew(t.name, progress(cmd))
			if err != nil {
				return err
			}
			if cfg.Security != "" && backends.NameOf(b) != local.Name {
				return usageErr("--security is for the local backend")
			}
			if _, ok := b.(cluster.Controllers); cfg.Quorum == cluster.QuorumDynamic && !ok {
				return usageErr("--quorum dynamic is for the local backend")
			}
			cfg.Name, cfg.Keep, cfg.Ready = t.name, true, kafka.Ready
			if cfg.Broker, err = parseSets(cfg.Kafka, sets); err != nil {
				return err
			}
			st, err := b.Up(cmd.Context(), cfg, progress(cmd))
			if err != nil {
				return err
			}
			printStatus(cmd.OutOrStdout(), st)
			fmt.Fprintf(cmd.OutOrStdout(), "\nbootstrap: %s\n", strings.Join(st.Bootstrap(), ","))
			if st.ClusterFile != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "clients: SASL_SSL, SCRAM-SHA-512 user %s; cluster file: %s\n(run against it with --backend external --cluster-file %s)\n", local.AdminUser, st.ClusterFile, st.ClusterFile)
			}
			return nil
		},
	}
	up.Flags().StringVar(&cfg.Kafka, "kafka", kafkadist.Default, "Kafka version")
	up.Flags().IntVar(&cfg.Nodes, "nodes", 3, "number of nodes")
	up.Flags().StringArrayVar(&sets, "set", nil, "server.properties override KEY=VALUE for every node (repeatable)")
	up.Flags().StringVar(&cfg.Security, "security", "", "local: 'sasl-ssl' gives clients a TLS listener (port 9095, certificates from the cluster's own CA) with SASL/SCRAM-SHA-512 for user "+local.AdminUser+" (password in the cluster's directory), and writes a cluster file for --backend external whose faults are 'kafkabook cluster OP --name NAME NODE'; replication and controllers stay PLAINTEXT")
	up.Flags().StringVar(&cfg.Quorum, "quorum", cluster.QuorumStatic, "the controller quorum: 'static' (controller.quorum.voters) or, local, 'dynamic' (KIP-853: formatted with --initial-controllers, so that voters can be added and removed)")
	t.bf.registerDocker(up.Flags())
	return up
}

func clusterStatusCmd(t *clusterTarget) *cobra.Command {
	var asJSON bool
	status := &cobra.Command{
		Use:   "status",
		Short: "List the nodes: name, id, address, state, pid",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := t.backend(cmd)
			if err != nil {
				return err
			}
			st, err := b.Status(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), st)
			}
			printStatus(cmd.OutOrStdout(), st)
			return nil
		},
	}
	status.Flags().BoolVar(&asJSON, "json", false, `print JSON: {"name", "backend", "kafka", "broker", "nodes": [{"name", "id", "address", "state", "pid"}], "cluster_file"}`)
	return status
}

func clusterListCmd() *cobra.Command {
	var listJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List every cluster on this host, also those a killed run left, and how to remove each",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			infos, err := backends.List(cmd.Context())
			if err != nil {
				return err
			}
			if listJSON {
				return printJSON(cmd.OutOrStdout(), infos)
			}
			printList(cmd.OutOrStdout(), infos)
			return nil
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, `print JSON: [{"name", "backend", "state", "created", "nodes", "nodes_up", "kafka", "owner_pid", "owner_alive", "kept", "dir", "problem", "remove"}]`)
	return list
}

func clusterDownCmd(t *clusterTarget) *cobra.Command {
	var all bool
	down := &cobra.Command{
		Use:   "down",
		Short: "Remove everything the cluster created (JVMs, namespaces, links, data; or containers, network, volumes) and check that nothing remains",
		Long: `Down removes everything the cluster created: JVMs, namespaces, links,
data (local); containers, network and volumes carrying the label
kafkabook.cluster=<name> (docker). Then it checks that nothing of the
cluster remains. If something does, down names each leftover and the
command that removes it, and exits 2; a later down retries.

With --all it removes every cluster that 'kafkabook cluster list' shows.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if all && cmd.Flags().Changed("name") {
				return usageErr("--all and --name exclude each other")
			}
			targets, err := t.downTargets(cmd, all)
			if err != nil || len(targets) == 0 {
				return err
			}
			var failed []string
			for _, n := range targets {
				b, err := t.bf.newBackend(n.kind, n.name)
				if err == nil {
					// Finish removing even after Ctrl-C.
					err = b.Down(context.WithoutCancel(cmd.Context()), progress(cmd))
				}
				if err != nil {
					if !all {
						return err
					}
					fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: %v\n", err)
					failed = append(failed, n.name)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "cluster %s is down\n", n.name)
			}
			if len(failed) > 0 {
				return fmt.Errorf("%d of %d clusters not fully removed: %s", len(failed), len(targets), strings.Join(failed, ", "))
			}
			return nil
		},
	}
	down.Flags().BoolVar(&all, "all", false, "remove every cluster kafkabook knows of on this host")
	return down
}

// downTarget is a cluster down removes, and its backend.
type downTarget struct{ name, kind string }

// downTargets are the clusters down removes: every one of --backend's
// kind with --all (it says so when there are none), else the named one in
// the backend that has it (local also when none has).
func (t *clusterTarget) downTargets(cmd *cobra.Command, all bool) ([]downTarget, error) {
	kind, err := t.bf.check()
	if err != nil {
		return nil, err
	}
	switch {
	case all:
		infos, err := backends.List(cmd.Context())
		if err != nil {
			return nil, err
		}
		var targets []downTarget
		for _, in := range infos {
			if kind == "" || kind == in.Backend {
				targets = append(targets, downTarget{in.Name, in.Backend})
			}
		}
		if len(targets) == 0 {
			fmt.Fprintln(cmd.OutOrStdout(), "no clusters")
		}
		return targets, nil
	case kind != "":
		return []downTarget{{t.name, kind}}, nil
	}
	if b, err := t.bf.find(cmd.Context(), t.name); err == nil && backends.NameOf(b) == docker.Name {
		return []downTarget{{t.name, docker.Name}}, nil
	}
	return []downTarget{{t.name, local.Name}}, nil
}

func clusterLogsCmd(t *clusterTarget) *cobra.Command {
	var grep string
	logs := &cobra.Command{
		Use:   "logs NODE",
		Short: "Print a node's broker log",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := t.backend(cmd)
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
			return copyLines(cmd.OutOrStdout(), r, re)
		},
	}
	logs.Flags().StringVar(&grep, "grep", "", "only lines matching this regular expression")
	return logs
}

// copyLines copies the lines of r that match re (every line when re is
// nil) to w.
func copyLines(w io.Writer, r io.Reader, re *regexp.Regexp) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	for sc.Scan() {
		if re == nil || re.Match(sc.Bytes()) {
			bw.Write(sc.Bytes())
			bw.WriteByte('\n')
		}
	}
	return sc.Err()
}

// clusterOpCmd is the command of one fault: kill, stop, start, ...
func clusterOpCmd(t *clusterTarget, f cluster.Fault) *cobra.Command {
	op := f.Op
	return &cobra.Command{
		Use:   string(op) + " NODE...",
		Short: f.Help,
		Args:  minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := t.backend(cmd)
			if err != nil {
				return err
			}
			if err := cluster.Apply(cmd.Context(), b, op, args, progress(cmd), nil); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", op, strings.Join(args, " "))
			return nil
		},
	}
}

// parseSets turns KEY=VALUE flags into a map.
func parseSets(release string, sets []string) (map[string]string, error) {
	m := map[string]string{}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, usageErr("--set %q: want KEY=VALUE, e.g. replica.lag.time.max.ms=3000", s)
		}
		// The same catalogue and refusals as a runbook's broker: map.
		if err := kafkaconfig.CheckBroker(release, k, v); err != nil {
			return nil, usageErr("--set %q: %v", s, err)
		}
		m[k] = v
	}
	return m, nil
}

func printStatus(out io.Writer, st cluster.Status) {
	quorum := ""
	if st.Quorum == cluster.QuorumDynamic {
		quorum = ", dynamic controller quorum"
	}
	fmt.Fprintf(out, "cluster %s: Kafka %s, %s backend%s\n", st.Name, st.Kafka, st.Backend, quorum)
	if st.Backend == external.Name {
		fmt.Fprintln(out, "(kafkabook cannot see an external cluster's processes: a state is what the last command applied left, unknown before any)")
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NODE\tID\tADDRESS\tSTATE\tPID")
	for _, n := range st.Nodes {
		pid := "-"
		if n.PID > 0 {
			pid = fmt.Sprint(n.PID)
		}
		state := string(n.State)
		if n.Kafka != "" && n.Kafka != st.Kafka {
			state += " (on " + n.Kafka + ")"
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\n", n.Name, n.ID, n.Address, state, pid)
	}
	w.Flush()
}

// printList prints `cluster list`.
func printList(out io.Writer, infos []backends.Info) {
	if len(infos) == 0 {
		fmt.Fprintln(out, "no clusters")
		return
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tSTATE\tAGE\tOWNER\tKEPT\tREMOVE WITH")
	for _, in := range infos {
		age := "-"
		if !in.Created.IsZero() {
			age = roughDuration(time.Since(in.Created))
		}
		owner := "-"
		if in.OwnerPID > 0 {
			owner = fmt.Sprintf("%d (gone)", in.OwnerPID)
			if in.OwnerAlive {
				owner = fmt.Sprintf("%d (running)", in.OwnerPID)
			}
		}
		state := in.State
		if in.Nodes > 0 && in.State != local.StateUp {
			state += fmt.Sprintf(" (%d/%d nodes)", in.NodesUp, in.Nodes)
		}
		kept := "no"
		if in.Kept {
			kept = "yes"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", in.Name, state, age, owner, kept, in.Remove)
	}
	w.Flush()
	for _, in := range infos {
		if in.Problem != "" {
			fmt.Fprintf(out, "%s: %s\n", in.Name, in.Problem)
		}
	}
}

// roughDuration is an age to the minute, or to the second under one.
func roughDuration(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Second).String()
	}
	return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
}

func printJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// reapAbandoned removes the clusters whose owner is gone and that were not
// meant to outlive it, one line on stderr for each.
func reapAbandoned(cmd *cobra.Command) {
	for _, r := range docker.Reap(context.WithoutCancel(cmd.Context())) {
		if r.Err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: could not remove abandoned Docker cluster %s, owner pid %d gone: %v\n", r.Name, r.OwnerPID, r.Err)
			continue
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "removed abandoned Docker cluster %s, owner pid %d gone\n", r.Name, r.OwnerPID)
	}
	for _, r := range local.Reap(context.WithoutCancel(cmd.Context())) {
		since := "an unknown time"
		if !r.Since.IsZero() {
			since = clock(r.Since)
		}
		if r.Err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: could not remove abandoned cluster %s, owner pid %d gone since %s: %v\n", r.Name, r.OwnerPID, since, r.Err)
			continue
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "removed abandoned cluster %s, owner pid %d gone since %s\n", r.Name, r.OwnerPID, since)
	}
}

// clock is a local time of day, with the date when it is not today.
func clock(t time.Time) string {
	t = t.Local()
	if y, m, d := t.Date(); time.Now().Year() == y && time.Now().Month() == m && time.Now().Day() == d {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}
