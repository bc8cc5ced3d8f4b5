package main

import (
	"fmt"

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
			for _, dir := range args {
				if err := report.RenderSite(dir, opts); err != nil {
					return err
				}
				fmt.Printf("rendered %s/index.html\n", dir)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&opts.SingleFile, "single-file", false, "inline echarts into every page (self-contained files)")
	return c
}
