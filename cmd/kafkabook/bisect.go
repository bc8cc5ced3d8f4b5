package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/kafkabook/kafkabook/internal/bisect"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/spf13/cobra"
)

func bisectCmd() *cobra.Command {
	var f runbookFlags
	var o runOpts
	var good, bad, maven string
	c := &cobra.Command{
		Use:   "bisect RUNBOOK.md --good VERSION --bad VERSION",
		Short: "Find the first Kafka release on which a runbook's outcome changed",
		Long: `Bisect runs the runbook, as run does (its repeats and clients, evidence
under --out), on the Kafka releases from --good to --bad that Maven
Central has, as few of them as a binary search needs: first the two ends,
then the release halfway between the last with --good's outcome and the
first with another, until they are neighbours. A release's outcome is
"held" when every expectation held in every run on it, else "failed"
(use expectations on rates over runs, decided with bounds, for a finding
that only some runs show: runs_lost(t) < 20% at 95%).

It prints each release probed with its outcome, then the two neighbours;
'kafkabook compare' on their evidence shows what changed between them,
with explain's causes. It assumes one change between the ends.

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
			doc := docs[0]
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
			fmt.Fprintf(o.stdout, "bisect: %d releases from %s to %s\n", len(releases), good, bad)
			probe := func(ctx context.Context, v string) (bisect.Outcome, error) {
				fmt.Fprintf(o.stdout, "\n=== bisect: Kafka %s ===\n", v)
				code, err := o.runVersion(ctx, docs, v)
				switch {
				case err != nil:
					return "", err
				case ctx.Err() != nil:
					return "", ctx.Err()
				case code == exitOK:
					return "held", nil
				case code == exitExpect:
					return "failed", nil
				}
				return "", &exitError{exitRun, fmt.Errorf("the runs on %s could not complete (exit %d): see their evidence", v, code)}
			}
			r, err := bisect.Search(cmd.Context(), releases, probe)
			fmt.Fprintln(o.stdout, "\nbisect: probed")
			for _, s := range r.Steps {
				fmt.Fprintf(o.stdout, "  %-8s %s\n", s.Release, s.Outcome)
			}
			if err != nil {
				return err
			}
			if !r.Changed {
				return &exitError{exitExpect, fmt.Errorf("%s and %s both %s: no change to find", good, bad, r.Before.Outcome)}
			}
			fmt.Fprintf(o.stdout, "bisect: %s on %s, %s on %s, the next release: the change is between them (kafkabook compare their evidence under %s)\n",
				r.Before.Outcome, r.Before.Release, r.After.Outcome, r.After.Release, o.out)
			return nil
		},
	}
	f.register(c)
	c.Flags().StringVar(&good, "good", "", "the older end: a Kafka release")
	c.Flags().StringVar(&bad, "bad", "", "the newer end: a Kafka release")
	c.Flags().StringVar(&maven, "maven", kafkadist.Central, "the Maven repository to list releases from")
	c.Flags().StringVar(&o.out, "out", "output", "directory for evidence and reports")
	c.Flags().BoolVar(&o.allowShell, "allow-shell", false, "run the runbook's sh blocks (a runbook is code)")
	c.Flags().BoolVar(&o.recordHost, "record-host", true, "record this machine's host name in the evidence")
	o.bf.register(c.Flags(), true)
	return c
}
