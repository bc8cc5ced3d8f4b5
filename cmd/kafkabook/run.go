package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/cluster"
	"github.com/kafkabook/kafkabook/cluster/local"
	"github.com/kafkabook/kafkabook/engine"
	"github.com/kafkabook/kafkabook/report"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
	"github.com/spf13/cobra"
)

func slicesSorted(seq iter.Seq[string]) []string { return slices.Sorted(seq) }

func runCmd() *cobra.Command {
	var f runbookFlags
	var out string
	var allowShell, keep, singleFile bool
	c := &cobra.Command{
		Use:   "run RUNBOOK.md",
		Short: "Check a runbook, run it against a real cluster, and write the evidence and report",
		Long: `Run checks the runbook, then runs it once per Kafka version (and repeat:
times per version) against a local three-node KRaft cluster.

If the default cluster (from 'kafkabook cluster up') is up with the same
Kafka version, node count and broker settings, run uses it and leaves it up.
Otherwise it starts its own cluster and removes it at the end, also on
failure and Ctrl-C, unless --keep-cluster is given: then that cluster stays
up as the default cluster.

Evidence goes to OUT/<runbook>/kafka-<version>/<UTC time>/: events.jsonl
(written as the run goes), results.json, runbook.md and index.html.

Exit codes: 0 every expectation held; 1 an expectation failed; 2 the run
could not complete (partial evidence is still written); 3 bad runbook or
arguments (nothing ran).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			doc, err := f.load(args[0])
			if err != nil {
				return err
			}
			code := exitOK
			for _, version := range doc.Meta.Kafka {
				c, err := runVersion(cmd.Context(), doc, version, out, allowShell, keep, singleFile)
				if err != nil {
					return err
				}
				code = max(code, c)
				if cmd.Context().Err() != nil {
					break
				}
			}
			if code != exitOK {
				return &exitError{code, errors.New("")}
			}
			return nil
		},
	}
	f.register(c)
	c.Flags().StringVar(&out, "out", "output", "directory for evidence and reports")
	c.Flags().BoolVar(&allowShell, "allow-shell", false, "run the runbook's sh blocks (a runbook is code)")
	c.Flags().BoolVar(&singleFile, "single-file", false, "inline echarts into the report (a self-contained page)")
	c.Flags().BoolVar(&keep, "keep-cluster", false, "leave the cluster up afterwards, as the default cluster")
	return c
}

// runVersion runs the runbook against one Kafka version and returns the
// exit code it earns.
func runVersion(ctx context.Context, doc *runbook.Doc, version, out string, allowShell, keep, singleFile bool) (int, error) {
	backend, teardown, err := clusterFor(ctx, doc, version, keep)
	if err != nil {
		return 0, err
	}
	name := strings.TrimSuffix(filepath.Base(doc.Path), filepath.Ext(doc.Path))
	dir := filepath.Join(out, name, "kafka-"+version, time.Now().UTC().Format("20060102T150405Z"))
	toolV, commit := buildInfo()
	host, _ := os.Hostname()
	res, runErr := engine.Run(ctx, engine.Options{
		Doc: doc, Dir: dir, Backend: backend, AllowShell: allowShell, Out: os.Stdout,
		Provenance: results.Provenance{
			Tool: toolV, Commit: commit, Kafka: version, Backend: local.Name,
			FranzGo: depVersion("github.com/twmb/franz-go/pkg/kgo"), Host: host,
			GoVersion: runtime.Version(), ClusterReused: teardown == nil,
		},
	})
	if teardown != nil {
		teardown()
	}
	if res == nil {
		return 0, runErr
	}
	summarize(res, dir)
	ropts := report.Options{SingleFile: singleFile, Generator: "kafkabook " + toolVersion()}
	if err := report.RenderSite(out, ropts); err != nil {
		fmt.Fprintf(os.Stderr, "kafkabook: rendering the report: %v\n", err)
		return exitRun, nil
	}
	fmt.Printf("report:   %s\n", filepath.Join(dir, report.IndexFile))
	if runErr != nil {
		fmt.Fprintf(os.Stderr, "kafkabook: %v\n", runErr)
		fmt.Fprintf(os.Stderr, "kafkabook: the run did not complete; partial evidence is in %s\n", dir)
		return exitRun, nil
	}
	if held, runs := res.Verdict(); held < runs {
		return exitExpect, nil
	}
	return exitOK, nil
}

// clusterFor finds or starts the cluster for a run. teardown is nil when
// the cluster outlives the run.
func clusterFor(ctx context.Context, doc *runbook.Doc, version string, keep bool) (cluster.Backend, func(), error) {
	def, err := local.New(defaultCluster)
	if err != nil {
		return nil, nil, err
	}
	if st, err := def.Status(ctx); err == nil {
		if matches(st, doc, version) {
			progress("using the default cluster (Kafka %s, %d nodes); it stays up", version, len(st.Nodes))
			return def, nil, nil
		}
		if keep {
			return nil, nil, &exitError{exitRun, fmt.Errorf("the default cluster is up with other settings (Kafka %s, %d nodes, %v); --keep-cluster would replace it: take it down with `kafkabook cluster down` first", st.Kafka, len(st.Nodes), st.Broker)}
		}
	}
	b := def
	if !keep {
		if b, err = local.New(fmt.Sprintf("run%d", os.Getpid())); err != nil {
			return nil, nil, err
		}
	}
	cfg := cluster.Config{Name: defaultCluster, Kafka: version, Nodes: doc.Meta.Nodes, Broker: doc.Meta.Broker}
	if _, err := b.Up(ctx, cfg, progress); err != nil {
		return nil, nil, err
	}
	if keep {
		return b, nil, nil
	}
	return b, func() {
		progress("taking the cluster down")
		if err := b.Down(context.WithoutCancel(ctx), progress); err != nil {
			fmt.Fprintf(os.Stderr, "kafkabook: taking the cluster down: %v\n", err)
		}
	}, nil
}

// matches reports whether a running cluster is the one the runbook asks for.
func matches(st cluster.Status, doc *runbook.Doc, version string) bool {
	if st.Kafka != version || len(st.Nodes) != doc.Meta.Nodes {
		return false
	}
	for _, n := range st.Nodes {
		if !n.State.Up() {
			return false
		}
	}
	return maps.Equal(st.Broker, doc.Meta.Broker) || len(st.Broker) == 0 && len(doc.Meta.Broker) == 0
}

// summarize prints the headline numbers of a run set.
func summarize(res *results.Results, dir string) {
	held, runs := res.Verdict()
	fmt.Printf("\n=== %s: expectations held in %d of %d runs ===\n", res.Title, held, runs)
	for _, label := range res.Labels() {
		lost := res.LostPerRun(label)
		p := res.LatencyAll(label)
		fmt.Printf("  %-12s lost per run %v  latency p50 %s p99 %s max %s\n", label, lost,
			p.P50.Round(time.Millisecond), p.P99.Round(time.Millisecond), p.Max.Round(time.Millisecond))
	}
	fmt.Printf("evidence: %s\n", dir)
}
