package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"

	"github.com/kafkabook/kafkabook/internal/bisect"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/kafkabook/kafkabook/report"
	"github.com/kafkabook/kafkabook/results"
	"github.com/spf13/cobra"
)

func bisectCmd() *cobra.Command {
	var f runbookFlags
	var o runOpts
	var good, bad, maven, expect, elections string
	c := &cobra.Command{
		Use:   "bisect RUNBOOK.md --good VERSION --bad VERSION",
		Short: "Find the first Kafka release on which a runbook's outcome changed",
		Long: `Bisect runs the runbook, as run does (its repeats and clients, evidence
under --out), on the Kafka releases from --good to --bad that Maven
Central has, as few of them as a binary search needs: first the two ends,
then the release halfway between the last with --good's outcome and the
first with another, until they are neighbours.

A release's outcome is, by default, "held" when every expectation held in
every run on it, "failed" when one did not, "undecided" when a rate over
the runs was neither (runs_lost(t) < 20% at 95%: add --until-decided).
--expect EXPR follows one expectation instead: one of the runbook's, as
written, or one bisect adds at its end (the evidence's copy of the
runbook shows it: runs_lost(acks1) > 10% at 95%). --elections TOPIC
follows how the topic's leaders were elected, as explain reads it in the
brokers' lines: the kinds other than clean ("last-known-leader",
"unclean", "outside-isr"), or "clean" — for a change in the cluster's
behaviour that no count shows.

It prints each release probed with its outcome, then the two neighbours
and the causes explain gives on one side and not the other, and writes
the record of it all, with the run directories each outcome rests on, to
OUT/<runbook>/bisect-GOOD-BAD.json, also when it stops early (a run that
could not complete, Ctrl-C): the probes so far, and why it stopped. It
assumes one change between the ends.

Exit codes: 0 the outcome changed (the releases are named), 1 the two ends
agree, 2 a run could not complete, 3 bad runbook or arguments.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if good == "" || bad == "" {
				return usageErr("give the two ends: --good VERSION --bad VERSION")
			}
			if kafkadist.CompareReleases(good, bad) >= 0 {
				return usageErr("--good %s is not older than --bad %s: give the older release as --good", good, bad)
			}
			if len(f.kafka) > 0 {
				return usageErr("bisect picks the releases itself: drop --kafka")
			}
			docs, err := f.loadAll(args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if expect != "" && !bisect.HasExpectation(docs[0].Expectations(), expect) {
				f.expect = expect // not the runbook's: added to it
				if docs, err = f.loadAll(args[0], cmd.ErrOrStderr()); err != nil {
					return err
				}
			}
			doc := docs[0]
			if err := o.checkUntilDecided(cmd, doc); err != nil {
				return err
			}
			judge, err := bisect.NewJudge(expect, elections, doc.Expectations(), doc.Topics())
			if err != nil {
				return usageErr("%v", err)
			}
			all, err := kafkadist.Releases(cmd.Context(), http.DefaultClient, maven, good)
			if err != nil {
				return err
			}
			releases := slices.DeleteFunc(all, func(v string) bool { return kafkadist.CompareReleases(v, bad) > 0 })
			if len(releases) < 2 || releases[0] != good || releases[len(releases)-1] != bad {
				return usageErr("%s lists %v from %s to %s: both ends must be releases there", maven, releases, good, bad)
			}
			reapAbandoned(cmd)
			o.stdout, o.stderr, o.progress = cmd.OutOrStdout(), cmd.ErrOrStderr(), progress(cmd)
			if o.bf.backend == "" && o.bf.clusterFile == "" {
				o.bf.backend = doc.Meta.Backend
			}
			fmt.Fprintf(o.stdout, "bisect: %d releases from %s to %s, following %s\n", len(releases), good, bad, judge)
			rec := bisect.Record{Runbook: doc.Name(), Judge: judge.String(), Releases: releases}
			runsOf := map[string][]results.Run{}
			probe := func(ctx context.Context, v string) (bisect.Outcome, error) {
				fmt.Fprintf(o.stdout, "\n=== bisect: Kafka %s ===\n", v)
				from := len(o.collected)
				code, err := o.runVersion(ctx, docs, v)
				switch {
				case err != nil:
					return "", err
				case ctx.Err() != nil:
					return "", ctx.Err()
				case code != exitOK && code != exitExpect:
					return "", &exitError{exitRun, fmt.Errorf("the runs on %s could not complete (exit %d): see their evidence", v, code)}
				}
				p := bisect.Probed{Release: v}
				for i, res := range o.collected[from:] {
					runsOf[v] = append(runsOf[v], res.Runs...)
					rel, err := filepath.Rel(o.out, o.dirs[from+i])
					if err != nil {
						rel = o.dirs[from+i]
					}
					p.Dirs = append(p.Dirs, filepath.ToSlash(rel))
				}
				p.Runs, p.Outcome = len(runsOf[v]), judge.Outcome(runsOf[v])
				rec.Probes = append(rec.Probes, p)
				fmt.Fprintf(o.stdout, "bisect: Kafka %s: %s (%d runs)\n", v, p.Outcome, p.Runs)
				return p.Outcome, nil
			}
			r, err := bisect.Search(cmd.Context(), releases, probe)
			fmt.Fprintln(o.stdout, "\nbisect: probed")
			for _, s := range r.Steps {
				fmt.Fprintf(o.stdout, "  %-8s %s\n", s.Release, s.Outcome)
			}
			if err == nil {
				rec.Changed, rec.Before, rec.After = r.Changed, r.Before.Release, r.After.Release
				if r.Changed {
					rec.OnlyBefore, rec.OnlyAfter = bisect.CauseDifference(runsOf[r.Before.Release], runsOf[r.After.Release])
				}
			} else {
				rec.Stopped = err.Error() // the probes so far are evidence too
			}
			if len(rec.Probes) > 0 {
				path, werr := rec.Write(filepath.Join(o.out, doc.Name()))
				if werr != nil {
					return &exitError{exitRun, errors.Join(err, fmt.Errorf("writing the bisect's record: %w", werr))}
				}
				fmt.Fprintf(o.stdout, "record:   %s\n", path)
				if err := report.UpdateIndex(o.out, report.Options{Generator: "kafkabook " + toolVersion(), Context: context.WithoutCancel(cmd.Context())}); err != nil {
					fmt.Fprintf(o.stderr, "kafkabook: writing the site index: %v\n", err)
				}
			}
			if err != nil {
				return err
			}
			if !r.Changed {
				return &exitError{exitExpect, fmt.Errorf("%s and %s both %s: no change to find", good, bad, r.Before.Outcome)}
			}
			fmt.Fprintf(o.stdout, "bisect: %s on %s, %s on %s, the next release: the change is between them\n",
				r.Before.Outcome, r.Before.Release, r.After.Outcome, r.After.Release)
			printCauses(o.stdout, "only on "+r.Before.Release, rec.OnlyBefore)
			printCauses(o.stdout, "only on "+r.After.Release, rec.OnlyAfter)
			return nil
		},
	}
	f.register(c)
	c.Flags().StringVar(&good, "good", "", "the older end: a Kafka release")
	c.Flags().StringVar(&bad, "bad", "", "the newer end: a Kafka release")
	c.Flags().StringVar(&expect, "expect", "", "follow one expectation instead of all: one of the runbook's, or one added at its end")
	c.Flags().StringVar(&elections, "elections", "", "follow how TOPIC's leaders were elected (explain's kinds other than clean) instead of the expectations")
	c.Flags().StringVar(&maven, "maven", kafkadist.Central, "the Maven repository to list releases from")
	c.Flags().StringVar(&o.out, "out", "output", "directory for evidence and reports")
	c.Flags().BoolVar(&o.allowShell, "allow-shell", false, "run the runbook's sh blocks (a runbook is code)")
	c.Flags().BoolVar(&o.recordHost, "record-host", true, "record this machine's host name in the evidence")
	o.bf.register(c.Flags(), true)
	o.registerUntilDecided(c)
	return c
}

// printCauses lists explain's causes found on one side of a change only.
func printCauses(w io.Writer, side string, causes []string) {
	if len(causes) == 0 {
		fmt.Fprintf(w, "  causes %s: none\n", side)
		return
	}
	fmt.Fprintf(w, "  causes %s:\n", side)
	for _, c := range causes {
		fmt.Fprintf(w, "    %s\n", c)
	}
}
