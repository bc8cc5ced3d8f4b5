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
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/site"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/backends"
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
			f.clusterFile, f.backend = o.bf.clusterFile, o.bf.backend
			if _, err := runbookName(args[0]); err != nil {
				return err // before anything runs: its evidence could go nowhere
			}
			if o.cell.id != "" {
				// The cell names its release, client and (in a sweep) its
				// combination: the runbook is read once to know which.
				doc, err := f.load(args[0], cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				if err := o.cell.apply(args[0], &f, runbook.Combinations(doc.Meta.Sweep)); err != nil {
					return err
				}
			}
			docs, err := f.loadAll(args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			doc := docs[0]
			if err := o.checkUntilDecided(cmd, doc); err != nil {
				return err
			}
			reapAbandoned(cmd)
			o.stdout, o.stderr, o.progress = cmd.OutOrStdout(), cmd.ErrOrStderr(), progress(cmd)
			if o.bf.backend == "" && o.bf.clusterFile == "" {
				o.bf.backend = doc.Meta.Backend // the flag wins over the front matter
			}
			code := exitOK
			for _, version := range doc.Meta.Kafka {
				c, err := o.runVersion(cmd.Context(), docs, version)
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
			if doc.SweepName() != "" {
				path, err := writeSettings(o.out, doc.SweepName())
				if err != nil {
					fmt.Fprintf(o.stderr, "kafkabook: writing the sweep's settings page: %v\n", err)
					code = max(code, exitRun)
				} else {
					fmt.Fprintf(o.stdout, "settings: %s\n", path)
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
	o.registerUntilDecided(c)
	return c
}

// registerUntilDecided adds --until-decided and --max, which run and
// bisect share.
func (o *runOpts) registerUntilDecided(c *cobra.Command) {
	c.Flags().BoolVar(&o.untilDecided, "until-decided", false, "repeat the runbook (past repeat:) until every expectation on a rate over runs, such as runs_lost(t) < 5% at 95%, is decided either way, or --max runs")
	c.Flags().IntVar(&o.maxRuns, "max", 100, "with --until-decided: the most runs per Kafka version and client")
}

// checkUntilDecided refuses --until-decided for a runbook with nothing to
// decide, and --max without it.
func (o *runOpts) checkUntilDecided(cmd *cobra.Command, doc *runbook.Doc) error {
	if cmd.Flags().Changed("max") && !o.untilDecided {
		return usageErr("--max bounds --until-decided: give both, or use --repeat for a fixed number of runs")
	}
	if !o.untilDecided {
		return nil
	}
	if o.maxRuns < 1 {
		return usageErr("--max %d: give 1 or more runs", o.maxRuns)
	}
	for _, b := range doc.Blocks {
		for _, s := range b.Steps {
			if e, ok := s.Action.(runbook.Expect); ok && e.Expr.IsRate() {
				return nil
			}
		}
	}
	return usageErr("--until-decided: %s has no expectation on a rate over runs to decide (expect runs_lost(t) < 20%% at 95%%)", doc.Path)
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
	dirs                         []string           // the run directory of each of collected
	cell                         cellFlags          // --cell, --batch
	attach                       attachFlags        // --attach, --allow-faults
	untilDecided                 bool               // --until-decided
	maxRuns                      int                // --max
}

// runVersion runs the runbook against one Kafka version, once per
// combination of its sweep (docs: one Doc each, or the one Doc without a
// sweep) and client, on one cluster while the broker settings agree, and
// returns the worst exit code they earn.
func (o *runOpts) runVersion(ctx context.Context, docs []*runbook.Doc, version string) (int, error) {
	code := exitOK
	for len(docs) > 0 && ctx.Err() == nil {
		// The combinations up to the first that sets the brokers
		// otherwise share a cluster.
		n := 1
		for n < len(docs) && maps.Equal(docs[n].Meta.Broker, docs[0].Meta.Broker) {
			n++
		}
		c, err := o.runOnCluster(ctx, docs[:n], version)
		if err != nil {
			return 0, err
		}
		code, docs = max(code, c), docs[n:]
	}
	return code, nil
}

// runOnCluster runs each Doc once per client on one cluster of version.
func (o *runOpts) runOnCluster(ctx context.Context, docs []*runbook.Doc, version string) (int, error) {
	lease, err := backends.ForRun(ctx, o.runRequest(docs[0], version), o.progress)
	if err != nil {
		return 0, backendErr(err)
	}
	// Every way out of here (error, panic, Ctrl-C) lets go of the cluster;
	// Release acts once.
	defer lease.Release()
	for _, doc := range docs {
		// The backend is known now (the front matter's, or the one
		// chosen): a step it cannot run stops the run before any does.
		if err := doc.Lacking(func(need string) string { return cluster.Lacks(lease.Backend, need) }); err != nil {
			return 0, usageErr("%v; nothing was run", err)
		}
	}
	code := exitOK
	for di, doc := range docs {
		if len(doc.Combination) > 0 {
			fmt.Fprintf(o.stdout, "\n=== sweep %s: %s ===\n", doc.Base(), doc.Combination)
		}
		for i, client := range doc.Meta.Client {
			last := di == len(docs)-1 && i == len(doc.Meta.Client)-1
			c, err := o.runClient(ctx, doc, version, client, lease, func() {
				if last {
					lease.Release() // down before rendering: the report needs no cluster
				}
			})
			if err != nil {
				return 0, err
			}
			code = max(code, c)
			if ctx.Err() != nil {
				return code, nil
			}
		}
	}
	return code, nil
}

// runClient runs the runbook against one Kafka version with one client on
// a cluster that is up, renders its report and returns the exit code it
// earns; done is called once the engine is through with the cluster.
func (o *runOpts) runClient(ctx context.Context, doc *runbook.Doc, version, client string, lease *backends.Lease, done func()) (int, error) {
	name := doc.Name()
	if why := site.NameProblem(name); why != "" {
		return 0, usageErr("%s: the runbook's evidence name %q cannot name a directory (%s): rename the file", doc.Path, name, why)
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
		Doc: doc, Dir: dir, Backend: lease.Backend, AllowShell: o.allowShell, Out: o.stdout, Verbose: o.verbose, Client: client,
		Provenance: results.Provenance{
			Tool: toolV, Commit: commit, Kafka: version, Backend: backends.NameOf(lease.Backend),
			FranzGo: kafka.FranzGoVersion(), Host: host,
			GoVersion: runtime.Version(), ClusterReused: lease.Reused,
			Cell: o.cell.id, Batch: o.cell.batch,
		},
		UntilDecided: o.untilDecided, MaxRuns: o.maxRuns,
	})
	done()
	if res == nil {
		return 0, runErr
	}
	summarize(o.stdout, res, dir)
	o.collected = append(o.collected, res)
	o.dirs = append(o.dirs, dir)
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
	if n := len(res.Runs); n > 0 && len(res.Runs[n-1].Undecided()) > 0 {
		return exitExpect, nil // a rate the runs did not decide is no finding
	}
	return exitOK, nil
}

// runRequest is what the run's flags and the runbook ask of a cluster for
// one Kafka version; package backends decides which cluster that is.
func (o *runOpts) runRequest(doc *runbook.Doc, version string) backends.RunRequest {
	var hurts []string
	for _, d := range runbook.Directives {
		if d.Hurts && doc.Uses(d.Op) {
			hurts = append(hurts, d.Name)
		}
	}
	return backends.RunRequest{
		Kind: o.bf.backend, Options: o.bf.options(), Attach: o.attach.name, AllowFaults: o.attach.allowFaults,
		Keep: o.keep, Default: defaultCluster, Kafka: version, Nodes: doc.Meta.Nodes, Broker: doc.Meta.Broker,
		PowerLoss: doc.NeedsLayer(), Clock: doc.NeedsClock(), Quorum: doc.Meta.Quorum, Hurts: hurts, Ready: kafka.Ready, Runbook: doc.Path,
		Warn: func(err error) { fmt.Fprintf(o.stderr, "kafkabook: %v\n", err) },
	}
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
		if runsB, msgsB := res.LossBounds(label); runsB.N > 0 {
			fmt.Fprintf(w, "  %-12s %s\n  %-12s %s\n", "", runsB.Words("runs", "lost any"), "", msgsB.Words("acknowledged messages", "lost"))
		}
	}
	for _, run := range res.Runs {
		for _, f := range run.Unproven() {
			fmt.Fprintf(w, "  run %d is left out of the bounds: the cluster did not show a fault landing: %s (%s)\n", run.Number, runbook.FaultWords(f), f.Observed)
		}
	}
	fmt.Fprintf(w, "evidence: %s\n", dir)
}
