package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"

	"github.com/kafkabook/kafkabook/internal/clientconfig"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/backends"
	"github.com/kafkabook/kafkabook/internal/cluster/docker"
	"github.com/kafkabook/kafkabook/internal/cluster/external"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/internal/powerfs"
	"github.com/kafkabook/kafkabook/runbook"
	"github.com/spf13/cobra"
)

// runbookFlags are the overrides check and run share.
type runbookFlags struct {
	kafka  []string
	client []string
	repeat int
	params []string
	// sweep is the combination of the runbook's sweep: to load; nil for
	// the first (loadAll loads each).
	sweep runbook.Combination
	// clusterFile is --cluster-file: an external cluster refuses the
	// faults it has no command for.
	clusterFile string
	// backend is --backend when given: check refuses the steps that
	// backend cannot run (restart --to on docker).
	backend string
	// expect is an expectation bisect --expect adds at the runbook's end,
	// in a block of its own, checked with the rest; the evidence's copy
	// of the runbook shows it.
	expect string
}

func (f *runbookFlags) register(c *cobra.Command) {
	c.Flags().Var(listFlag{&f.kafka}, "kafka", "Kafka version(s), overriding the front matter (comma-separated for a matrix)")
	c.Flags().Var(listFlag{&f.client}, "client", "client(s) produce steps send through, overriding client: (comma-separated runs the runbook once per client): franz-go, java[@VERSION], librdkafka[@VERSION], spring[@VERSION]")
	c.Flags().IntVar(&f.repeat, "repeat", 0, "runs of the whole runbook, overriding repeat:")
	c.Flags().StringArrayVarP(&f.params, "param", "p", nil, "parameter NAME=VALUE, overriding params: (repeatable)")
}

// load reads and checks a runbook; a bad one is a usage error (exit 3)
// with every problem listed.
func (f *runbookFlags) load(path string, stderr io.Writer) (*runbook.Doc, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if f.expect != "" {
		src = fmt.Appendf(bytes.Clone(src), "\n<!-- added by kafkabook bisect --expect -->\n\n```kafka\nexpect %s\n```\n", f.expect)
	}
	ov := runbook.Overrides{Kafka: f.kafka, Client: f.client, Repeat: f.repeat, Params: map[string]string{}, Sweep: f.sweep}
	for _, p := range f.params {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, usageErr("-p %q: want NAME=VALUE", p)
		}
		ov.Params[k] = v
	}
	// runbook never probes the machine: what it can do is found out here.
	caps := runbook.Capabilities{PowerLossMissing: powerfs.Missing(), ClockMissing: local.ClockMissing(), ClientProperty: clientProperty}
	var cf *external.File
	if f.clusterFile != "" {
		if cf, err = external.Load(f.clusterFile); err != nil {
			return nil, usageErr("%v", err)
		}
		caps.FaultMissing = externalFaultMissing(cf)
		caps.NodeNames = cf.NodeNames()
	} else if f.backend != "" {
		caps.FaultMissing = func(need string) string { return backends.Lacks(f.backend, need) }
	}
	doc, err := runbook.LoadFor(path, src, ov, caps)
	if err != nil {
		fmt.Fprint(stderr, strings.TrimRight(err.Error(), "\n")+"\n")
		n := 1
		if list, ok := err.(runbook.ErrorList); ok {
			n = len(list)
		}
		return nil, &exitError{exitUsage, fmt.Errorf("%s: %d error(s); nothing was run", path, n)}
	}
	for _, w := range doc.Warnings {
		fmt.Fprint(stderr, w.Warning())
	}
	if cf != nil && doc.Meta.Nodes != len(cf.Nodes) {
		return nil, usageErr("%s: the runbook has %d nodes (nodes:, default 3) and the external cluster %s has %d: the run needs them to match", path, doc.Meta.Nodes, cf.Name, len(cf.Nodes))
	}
	return doc, nil
}

// loadAll loads the runbook once per combination of its sweep: (once
// without one), each checked whole before anything runs.
func (f *runbookFlags) loadAll(path string, stderr io.Writer) ([]*runbook.Doc, error) {
	doc, err := f.load(path, stderr)
	if err != nil {
		return nil, err
	}
	combos := runbook.Combinations(doc.Meta.Sweep)
	if len(combos) == 0 || f.sweep != nil {
		return []*runbook.Doc{doc}, nil
	}
	docs := []*runbook.Doc{doc} // loaded without a combination: the first
	for _, c := range combos[1:] {
		g := *f
		g.sweep = c
		d, err := g.load(path, stderr)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// externalFaultMissing says which faults an external cluster cannot
// apply: the node faults (cluster.Faults) its cluster file has no command
// for (or none for the repair a run needs afterwards), the network and
// power faults only kafkabook's own clusters can inject, and what its
// backend lacks (cluster.Lacks); a reassignment and an election go through
// Kafka's admin API and need nothing of the file.
func externalFaultMissing(cf *external.File) func(string) string {
	return func(fault string) string {
		if msg := backends.Lacks(external.Name, fault); msg != "" {
			return msg
		}
		switch fault {
		case cluster.NeedRestartTo, cluster.NeedRollTo:
			return cf.ReleaseMissing() // the file's release command
		case string(runbook.OpRoll):
			fault = string(cluster.Restart) // a roll is restarts with waits
		case string(runbook.OpReassign), string(runbook.OpWaitReassigned), string(runbook.OpElect):
			return "" // Kafka's admin API: any cluster takes it
		}
		if _, node := cluster.FaultOf(cluster.Op(fault)); !node {
			return fmt.Sprintf("%s needs a cluster kafkabook runs (local or docker): the external backend applies only the node faults of its cluster file (%s)", fault, external.OpList())
		}
		return cf.Missing(cluster.Op(fault))
	}
}

func checkCmd() *cobra.Command {
	var f runbookFlags
	var bf backendFlags
	c := &cobra.Command{
		Use:   "check RUNBOOK.md...",
		Short: "Validate runbooks without touching a cluster; every error with file:line:col and a caret",
		Long: `Check validates each runbook without touching a cluster and reports every
problem in it, each with file:line:col, the line and a caret. It exits 3
when any runbook is bad, after checking all of them.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch bf.backend {
			case "", local.Name, docker.Name, external.Name:
			default:
				return usageErr("--backend %q: use local, docker or external", bf.backend)
			}
			if bf.clusterFile != "" && bf.backend != "" && bf.backend != external.Name {
				return usageErr("--cluster-file is for --backend external")
			}
			f.clusterFile, f.backend = bf.clusterFile, bf.backend
			var bad []error
			for _, path := range args {
				err := checkOne(cmd, &f, path)
				if err != nil && len(args) == 1 {
					return err
				}
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: %v\n", err)
					bad = append(bad, err)
				}
			}
			if len(bad) > 0 {
				return usageErr("%d of %d runbooks bad; nothing was run", len(bad), len(args))
			}
			return nil
		},
	}
	f.register(c)
	c.Flags().StringVar(&bf.backend, "backend", "", "the backend the runbook will run on: with external (and --cluster-file) a fault the cluster file has no command for is an error")
	bf.registerExternal(c.Flags())
	return c
}

// checkOne checks one runbook (each combination of a sweep) and prints its
// summary: steps, runs, nodes, releases, sh blocks, parameters (of the
// first combination) and the sweep.
func checkOne(cmd *cobra.Command, f *runbookFlags, path string) error {
	docs, err := f.loadAll(path, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	doc := docs[0]
	out := cmd.OutOrStdout()
	steps := 0
	for _, b := range doc.Blocks {
		steps += len(b.Steps)
	}
	fmt.Fprintf(out, "%s: ok: %d steps, %d run(s) on %d nodes, Kafka %s\n", path, steps, doc.Meta.Repeat, doc.Meta.Nodes, strings.Join(doc.Meta.Kafka, ", "))
	if doc.Meta.Backend == external.Name && f.clusterFile == "" {
		fmt.Fprintf(out, "%s: note: backend: external; give --cluster-file to check its faults against the cluster's commands\n", path)
	}
	if sh := doc.ShellBlocks(); len(sh) > 0 {
		fmt.Fprintf(out, "%s: note: %d sh block(s) run only with `kafkabook run --allow-shell`\n", path, len(sh))
	}
	if len(doc.Meta.Params) > 0 {
		keys := slicesSorted(maps.Keys(doc.Meta.Params))
		var kv []string
		for _, k := range keys {
			kv = append(kv, k+"="+doc.Meta.Params[k])
		}
		fmt.Fprintf(out, "%s: params: %s\n", path, strings.Join(kv, " "))
	}
	if len(doc.Meta.Sweep) > 0 {
		var sw []string
		for _, p := range doc.Meta.Sweep {
			sw = append(sw, p.Name+"=["+strings.Join(p.Values, " ")+"]")
		}
		fmt.Fprintf(out, "%s: sweep: %s: %d combinations, each checked, each run on every release and client\n", path, strings.Join(sw, " "), len(docs))
	}
	return nil
}

// clientProperty checks a client property against the client's own
// catalogue, generated from the client (internal/clientconfig).
func clientProperty(client, version, role, name, value string) error {
	return clientconfig.Check(client, version, clientconfig.Role(role), name, value)
}
