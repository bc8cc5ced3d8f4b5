package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/site"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/backends"
	"github.com/kafkabook/kafkabook/internal/cluster/external"
	"github.com/kafkabook/kafkabook/internal/engine"
	"github.com/kafkabook/kafkabook/report"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
	"github.com/spf13/cobra"
)

func slicesSorted(seq iter.Seq[string]) []string { return slices.Sorted(seq) }

func runCmd() *cobra.Command {
	var f runbookFlags
	var o runOpts
	c := &cobra.Command{
		Use:   "run RUNBOOK.md",
		Short: "Check a runbook, run it against a real cluster, and write the evidence and report",
		Long: `Run checks the runbook, then runs it once per Kafka version and client
(and repeat: times per version and client) against a three-node KRaft cluster: local (a JVM per
node in a network namespace; needs root), docker (containers from
compose.yaml) or kubernetes (pods from kubernetes.yaml, in --namespace),
as --backend says; without it, local where it can run, else docker. With
--cluster-file FILE (backend external) it runs against the cluster FILE
describes, which kafkabook did not start and never removes: its
addresses, TLS trust, SASL identity (the password from an environment
variable or a file) and a command per fault.

If the default cluster (from 'kafkabook cluster up') is up with the same
Kafka version, node count and broker settings, run uses it and leaves it up.
Otherwise it starts its own cluster and removes it at the end, also on
failure and Ctrl-C, unless --keep-cluster is given: then that cluster stays
up as the default cluster. The JVMs of its own cluster die with kafkabook
however it ends; if it is killed, the next kafkabook command removes the
rest. A second Ctrl-C exits at once, without finishing the cleanup.

Evidence goes to OUT/<runbook>/kafka-<version>/<UTC time>/: events.jsonl
(written as the run goes), results.json, runbook.md and index.html; for a
client other than franz-go (--client, the front matter's client:) to
OUT/<runbook>/kafka-<version>-<client>/<UTC time>/ (java@3.9.1 as
java-3.9.1). The clients of one Kafka version share its cluster.

Exit codes: 0 every expectation held; 1 an expectation failed; 2 the run
could not complete (partial evidence is still written); 3 bad runbook or
arguments (nothing ran).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.cell.apply(args[0], &f); err != nil {
				return err
			}
			f.clusterFile = o.bf.clusterFile
			doc, err := f.load(args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			reapAbandoned(cmd)
			o.stdout, o.stderr, o.progress = cmd.OutOrStdout(), cmd.ErrOrStderr(), progress(cmd)
			if o.bf.backend == "" && o.bf.clusterFile == "" {
				o.bf.backend = doc.Meta.Backend // the flag wins over the front matter
			}
			code := exitOK
			for _, version := range doc.Meta.Kafka {
				c, err := o.runVersion(cmd.Context(), doc, version)
				if err != nil {
					if o.junit != "" && len(o.collected) > 0 {
						writeJUnit(o.junit, o.collected, o.stderr)
					}
					return err
				}
				code = max(code, c)
				if cmd.Context().Err() != nil {
					break
				}
			}
			if o.junit != "" {
				if err := writeJUnit(o.junit, o.collected, o.stderr); err != nil {
					return err
				}
			}
			if code != exitOK {
				return &exitError{code, errors.New("")}
			}
			return nil
		},
	}
	f.register(c)
	c.Flags().StringVar(&o.out, "out", "output", "directory for evidence and reports")
	c.Flags().BoolVar(&o.allowShell, "allow-shell", false, "run the runbook's sh blocks (a runbook is code)")
	c.Flags().BoolVar(&o.singleFile, "single-file", false, "inline echarts into the report (a self-contained page)")
	c.Flags().BoolVar(&o.keep, "keep-cluster", false, "leave the cluster up afterwards, as the default cluster")
	c.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "list every produced message's result (steps of more than 20 messages show a summary otherwise)")
	o.bf.register(c.Flags(), true)
	o.attach.register(c.Flags())
	o.cell.register(c.Flags())
	c.Flags().StringVar(&o.junit, "junit", "", "also write the expectations of every run (and Kafka version) as JUnit XML to FILE, for CI")
	c.Flags().BoolVar(&o.recordHost, "record-host", true, "record this machine's host name in the evidence (--record-host=false for evidence to publish)")
	return c
}

// runOpts are run's flags and the streams it writes to.
type runOpts struct {
	out                          string
	allowShell, keep, singleFile bool
	recordHost, verbose          bool
	stdout, stderr               io.Writer
	progress                     cluster.Progress
	bf                           backendFlags       // --backend, --image, --compose
	junit                        string             // --junit FILE
	collected                    []*results.Results // each version's results, for --junit
	cell                         cellFlags          // --cell, --batch
	attach                       attachFlags        // --attach, --allow-faults
}

// runVersion runs the runbook against one Kafka version, once per client
// on one cluster, and returns the worst exit code they earn.
func (o *runOpts) runVersion(ctx context.Context, doc *runbook.Doc, version string) (int, error) {
	backend, teardown, err := o.clusterFor(ctx, doc, version)
	if err != nil {
		return 0, err
	}
	// Every way out of here (error, panic, Ctrl-C) takes the cluster down;
	// teardown runs once.
	defer teardown()
	code := exitOK
	for i, client := range doc.Meta.Client {
		last := i == len(doc.Meta.Client)-1
		c, err := o.runClient(ctx, doc, version, client, backend, func() {
			if last {
				teardown() // down before rendering: the report needs no cluster
			}
		})
		if err != nil {
			return 0, err
		}
		code = max(code, c)
		if ctx.Err() != nil {
			break
		}
	}
	return code, nil
}

// runClient runs the runbook against one Kafka version with one client on
// a cluster that is up, renders its report and returns the exit code it
// earns; done is called once the engine is through with the cluster.
func (o *runOpts) runClient(ctx context.Context, doc *runbook.Doc, version, client string, backend runCluster, done func()) (int, error) {
	name, err := runbookName(doc.Path)
	if err != nil {
		return 0, err
	}
	dir, err := results.NewRunDir(filepath.Join(o.out, name, site.SeriesDir(version, client)), time.Now())
	if err != nil {
		return 0, err
	}
	if len(doc.Meta.Client) > 1 || client != runbook.FranzGo {
		fmt.Fprintf(o.stdout, "\n=== Kafka %s, client %s ===\n", version, client)
	}
	toolV, commit := buildInfo()
	host := ""
	if o.recordHost {
		host, _ = os.Hostname()
	}
	res, runErr := engine.Run(ctx, engine.Options{
		Doc: doc, Dir: dir, Backend: backend.Backend, AllowShell: o.allowShell, Out: o.stdout, Verbose: o.verbose, Client: client,
		Provenance: results.Provenance{
			Tool: toolV, Commit: commit, Kafka: version, Backend: backends.NameOf(backend.Backend),
			FranzGo: kafka.FranzGoVersion(), Host: host,
			GoVersion: runtime.Version(), ClusterReused: backend.reused,
			Cell: o.cell.id, Batch: o.cell.batch,
		},
	})
	done()
	if res == nil {
		return 0, runErr
	}
	summarize(o.stdout, res, dir)
	o.collected = append(o.collected, res)
	// The new run's page failing is the run's failure; an older run that
	// cannot be rendered is only a warning. The fetch of echarts outlives
	// Ctrl-C, so an interrupted run still gets its partial report.
	ropts := report.Options{
		SingleFile: o.singleFile, Generator: "kafkabook " + toolVersion(), Site: o.out,
		Context:  context.WithoutCancel(ctx),
		Progress: func(m string) { fmt.Fprintf(o.stderr, "kafkabook: %s\n", m) },
		Warn:     func(err error) { fmt.Fprintf(o.stderr, "kafkabook: warning: %v\n", err) },
	}
	// The site gets this run's page and an index from the other runs'
	// summaries; no other run is rendered again.
	if err := report.UpdateSite(o.out, dir, ropts); err != nil {
		var re *report.RunError
		if errors.As(err, &re) {
			fmt.Fprintf(o.stderr, "kafkabook: writing the report: %v\n", err)
		} else {
			fmt.Fprintf(o.stderr, "kafkabook: writing the site index: %v\n", err)
		}
		return exitRun, nil
	}
	fmt.Fprintf(o.stdout, "report:   %s\n", filepath.Join(dir, report.IndexFile))
	if runErr != nil {
		fmt.Fprintf(o.stderr, "kafkabook: %v\n", runErr)
		what := "the run"
		if o.cell.id != "" {
			what = "cell " + o.cell.id
		}
		fmt.Fprintf(o.stderr, "kafkabook: %s did not complete; partial evidence is in %s\n", what, dir)
		return exitRun, nil
	}
	if held, runs := res.Verdict(); held < runs {
		return exitExpect, nil
	}
	return exitOK, nil
}

// runCluster is the cluster a run uses; reused when it was up before.
type runCluster struct {
	cluster.Backend
	reused bool
}

// clusterFor finds or starts the cluster for a run. teardown removes a
// cluster the run started for itself, once, however often it is called; it
// does nothing for a cluster that outlives the run.
func (o *runOpts) clusterFor(ctx context.Context, doc *runbook.Doc, version string) (runCluster, func(), error) {
	nothing := func() {}
	if b, teardown, err := o.attach.cluster(ctx, &o.bf, doc, o.keep, o.progress); err != nil || b != nil {
		return runCluster{b, true}, teardown, err
	}
	// A runbook that cuts power needs every node's data on the power-loss
	// layer, which costs throughput: only its own cluster has it.
	powerloss := doc.Uses(runbook.OpPowerloss)
	if kind, err := o.bf.check(); err != nil {
		return runCluster{}, nil, err
	} else if kind == external.Name {
		return o.externalCluster(ctx, doc, version)
	}
	def, err := o.bf.forExisting(ctx, defaultCluster)
	if err != nil {
		return runCluster{}, nil, err
	}
	if st, err := def.Status(ctx); err == nil {
		if matches(st, doc, version) && !powerloss {
			o.progress("using the default cluster (Kafka %s, %d nodes); it stays up", version, len(st.Nodes))
			return runCluster{def, true}, nothing, nil
		}
		if o.keep {
			return runCluster{}, nil, &exitError{exitRun, fmt.Errorf("the default cluster is up with other settings (Kafka %s, %d nodes, %v); --keep-cluster would replace it: take it down with `kafkabook cluster down` first", st.Kafka, len(st.Nodes), st.Broker)}
		}
	}
	name := defaultCluster
	if !o.keep {
		name = fmt.Sprintf("run%d", os.Getpid())
	}
	b, err := o.bf.forNew(ctx, name, o.progress)
	if err != nil {
		return runCluster{}, nil, err
	}
	if _, ok := b.(cluster.PowerLoss); powerloss && !ok {
		return runCluster{}, nil, &exitError{exitUsage, fmt.Errorf("%s uses powerloss, which needs the local backend: the %s backend cannot drop a node's unsynced writes", doc.Path, backends.NameOf(b))}
	}
	cfg := cluster.Config{Name: defaultCluster, Kafka: version, Nodes: doc.Meta.Nodes, Broker: doc.Meta.Broker, Keep: o.keep, PowerLoss: powerloss, Ready: kafka.Ready}
	// Up removes what it created when it fails or is interrupted.
	if _, err := b.Up(ctx, cfg, o.progress); err != nil {
		return runCluster{}, nil, err
	}
	if o.keep {
		return runCluster{b, false}, nothing, nil
	}
	var once sync.Once
	return runCluster{b, false}, func() {
		once.Do(func() {
			o.progress("taking the cluster down")
			if err := b.Down(context.WithoutCancel(ctx), o.progress); err != nil {
				fmt.Fprintf(o.stderr, "kafkabook: taking the cluster down: %v\n", err)
			}
		})
	}, nil
}

// externalCluster checks that the cluster of --cluster-file answers with
// the runbook's node count; it is never taken down (it is not kafkabook's).
func (o *runOpts) externalCluster(ctx context.Context, doc *runbook.Doc, version string) (runCluster, func(), error) {
	b, err := o.bf.newBackend(external.Name, "")
	if err != nil {
		return runCluster{}, nil, err
	}
	cfg := cluster.Config{Name: defaultCluster, Kafka: version, Nodes: doc.Meta.Nodes, Broker: doc.Meta.Broker, Keep: true, Ready: kafka.Ready}
	if _, err := b.Up(ctx, cfg, o.progress); err != nil {
		return runCluster{}, nil, err
	}
	if !b.(*external.Backend).HasLogs() {
		o.progress("the cluster file has no logs command: the evidence will have no broker log lines")
	}
	return runCluster{b, true}, func() {}, nil
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
func summarize(w io.Writer, res *results.Results, dir string) {
	held, runs := res.Verdict()
	title := res.Title
	if c := res.Provenance.Client; c != "" {
		title += " (client " + c + ")"
	}
	fmt.Fprintf(w, "\n=== %s: expectations held in %d of %d runs ===\n", title, held, runs)
	for _, label := range res.Labels() {
		lost := res.LostPerRun(label)
		p := res.LatencyAll(label)
		fmt.Fprintf(w, "  %-12s lost per run %v  latency p50 %s p99 %s max %s\n", label, lost,
			p.P50.Round(time.Millisecond), p.P99.Round(time.Millisecond), p.Max.Round(time.Millisecond))
	}
	fmt.Fprintf(w, "evidence: %s\n", dir)
}
