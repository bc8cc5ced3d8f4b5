package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kafkabook/kafkabook/report"
	"github.com/spf13/cobra"
)

func renderCmd() *cobra.Command {
	var opts report.Options
	c := &cobra.Command{
		Use:   "render [DIR...]",
		Short: "Rebuild every report and the site index under DIR (default output/) from results alone",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"output"}
			}
			opts.Generator = "kafkabook " + toolVersion()
			opts.Context = cmd.Context()
			opts.Progress = func(m string) { fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: %s\n", m) }
			opts.Warn = func(err error) { fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: warning: %v\n", err) }
			for _, dir := range args {
				if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
					return usageErr("render %s: no such directory (render takes the --out directory of `kafkabook run`, default output)", dir)
				}
			}
			for _, dir := range args {
				if err := report.RenderSite(dir, opts); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "rendered %s/index.html\n", dir)
				if _, err := os.Stat(filepath.Join(dir, "results.json")); err == nil {
					continue // a run directory: just its page
				}
				if found, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*", "results.json")); len(found) == 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: note: no results.json under %s (DIR/<runbook>/kafka-<version>/<time>/), so the index lists no runs\n", dir)
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&opts.SingleFile, "single-file", false, "inline echarts into every page (self-contained files)")
	return c
}
