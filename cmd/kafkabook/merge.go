package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kafkabook/kafkabook/internal/site"
	"github.com/kafkabook/kafkabook/report"
	"github.com/spf13/cobra"
)

func mergeCmd() *cobra.Command {
	var into string
	var opts report.Options
	c := &cobra.Command{
		Use:   "merge DIR... --into OUT",
		Short: "Merge evidence trees written on other machines (cells of a plan) into one site, then render it",
		Long: `Merge copies every run directory found under each DIR (the --out of
'kafkabook run', e.g. one per cell of 'kafkabook plan') into OUT at the same
place, OUT/<runbook>/kafka-<version>/<time>/, then renders every page and
the site index once, and each sweep's settings page (OUT/<sweep>.settings.html).

A run is never overwritten or dropped: a run whose evidence is already in
OUT under its name is skipped; a different run under a name OUT already
uses is copied under that name plus "-" and the first 12 hex digits of the
sha256 of its evidence, so two runs of one cell from two machines both
stay. Merging the same trees again changes nothing. Each runbook/release's
latest link points at its newest complete run (the newest run when none
completed).

Exit codes: 0 merged; 2 a run could not be copied (the rest are merged and
rendered); 3 bad arguments.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if into == "" {
				return usageErr("merge needs --into OUT, the site to merge into (e.g. output)")
			}
			if err := site.CheckSources(args, into); err != nil {
				return usageErr("%v", err)
			}
			m := site.Merger{Into: into, Log: cmd.ErrOrStderr()}
			for _, src := range args {
				m.Tree(src)
				m.Bisects(src)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged into %s: %d run(s) copied, %d renamed apart, %d already there; %d bisect record(s)\n", into, m.Copied, m.Renamed, m.Skipped, m.Bisected)
			opts.Generator = "kafkabook " + toolVersion()
			opts.Context = cmd.Context()
			opts.Progress = func(m string) { fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: %s\n", m) }
			opts.Warn = func(err error) { fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: warning: %v\n", err) }
			if err := report.RenderSite(into, opts); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "rendered %s\n", filepath.Join(into, report.IndexFile))
			pages, err := writeAllSettings(into)
			if err != nil {
				return err
			}
			for _, p := range pages {
				fmt.Fprintf(cmd.OutOrStdout(), "settings: %s\n", p)
			}
			if len(m.Failed) > 0 {
				return &exitError{exitRun, fmt.Errorf("%d run(s) not merged: %s", len(m.Failed), strings.Join(m.Failed, ", "))}
			}
			return nil
		},
	}
	c.Flags().StringVar(&into, "into", "", "the site to merge into, created when missing (e.g. output)")
	c.Flags().BoolVar(&opts.SingleFile, "single-file", false, "inline echarts into every page (self-contained files)")
	return c
}
