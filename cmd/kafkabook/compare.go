package main

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/kafkabook/kafkabook/internal/atomicfile"
	"github.com/kafkabook/kafkabook/internal/evidence"
	"github.com/kafkabook/kafkabook/internal/safetext"
	"github.com/spf13/cobra"
)

func compareCmd() *cobra.Command {
	var htmlOut string
	c := &cobra.Command{
		Use:   "compare RUN_DIR_A RUN_DIR_B",
		Short: "Show two result sets side by side (versions, backends, parameters), what changed marked",
		Long: `Compare prints two run directories' evidence side by side: title, runbook
hash, Kafka version, client and its exact version, backend, broker overrides,
parameters, the verdict, and per experiment runs, acked, lost, duplicates,
failed, unknown and p99 ack latency, then each expectation's verdict. A row that differs ends in "*";
latencies within 10% of each other count as the same.

--html FILE also writes the comparison as a static HTML page (no scripts,
no network requests).`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, _, err := loadResults(args[0])
			if err != nil {
				return err
			}
			b, _, err := loadResults(args[1])
			if err != nil {
				return err
			}
			cmp := evidence.Compare(a, b, filepath.ToSlash(filepath.Clean(args[0])), filepath.ToSlash(filepath.Clean(args[1])))
			if err := cmp.Text(cmd.OutOrStdout()); err != nil {
				return err
			}
			if htmlOut != "" {
				var buf bytes.Buffer
				if err := cmp.HTML(&buf); err != nil {
					return err
				}
				if err := atomicfile.WriteFile(htmlOut, safetext.Page(buf.Bytes()), 0o644); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: wrote %s\n", htmlOut)
			}
			return nil
		},
	}
	c.Flags().StringVar(&htmlOut, "html", "", "also write the comparison as a static HTML page to FILE")
	return c
}
