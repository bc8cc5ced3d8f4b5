package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kafkabook/kafkabook/report"
	"github.com/spf13/cobra"
)

func renderCmd() *cobra.Command {
	var opts report.Options
	c := &cobra.Command{
		Use:   "render [DIR...]",
		Short: "Rebuild every report and the site index under DIR (default output/) from results alone",
		Long: `Render rebuilds every report, the site index, the comparisons of
releases and each sweep's settings page (DIR/<sweep>.settings.html) under
each DIR (default output) from the evidence alone.

Only each run directory's own files are read, never through a symbolic
link, and the stored runbook must be the one whose sha256 the results
recorded. A run whose evidence cannot be read is named on stderr, loses
its page and its place in the index, and render exits 2 once the rest of
the site is written.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"output"}
			}
			opts.Generator = "kafkabook " + toolVersion()
			opts.Context = cmd.Context()
			opts.Progress = func(m string) { fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: %s\n", m) }
			var failed []string
			opts.Warn = func(err error) {
				fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: %v\n", err)
				var re *report.RunError
				if errors.As(err, &re) {
					failed = append(failed, re.Dir)
				}
			}
			for _, dir := range args {
				if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
					return usageErr("render %s: no such directory (render takes the --out directory of `kafkabook run`, default output)", dir)
				}
			}
			for _, dir := range args {
				if err := report.RenderSite(dir, opts); err != nil {
					var re *report.RunError
					if !errors.As(err, &re) {
						return err
					}
					// A run directory rendered alone.
					fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: %v\n", err)
					failed = append(failed, re.Dir)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "rendered %s/index.html\n", dir)
				if _, err := os.Stat(filepath.Join(dir, "results.json")); err == nil {
					continue // a run directory: just its page
				}
				if found, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*", "results.json")); len(found) == 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: note: no results.json under %s (DIR/<runbook>/kafka-<version>/<time>/), so the index lists no runs\n", dir)
				}
				pages, err := writeAllSettings(dir)
				if err != nil {
					return err
				}
				for _, p := range pages {
					fmt.Fprintf(cmd.OutOrStdout(), "rendered %s\n", p)
				}
			}
			if len(failed) > 0 {
				return &exitError{exitRun, fmt.Errorf("render: the evidence of %d run(s) could not be read, so they have no page and are not in the index: %s", len(failed), strings.Join(failed, ", "))}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&opts.SingleFile, "single-file", false, "inline echarts into every page (self-contained files)")
	return c
}
