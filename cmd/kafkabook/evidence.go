package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kafkabook/kafkabook/internal/atomicfile"

	"github.com/kafkabook/kafkabook/internal/evidence"
	"github.com/kafkabook/kafkabook/internal/site"
	"github.com/kafkabook/kafkabook/report"
	"github.com/kafkabook/kafkabook/results"
	"github.com/spf13/cobra"
)

func evidenceCmd() *cobra.Command {
	var format, relTo, sweep string
	c := &cobra.Command{
		Use:   "evidence RUN_DIR | --sweep NAME SITE",
		Short: "Print a run directory's evidence as a block for a decision record (Markdown or JSON)",
		Long: `Evidence prints what a decision record cites from a run directory
(OUT/<runbook>/kafka-<version>/<time>/): the runbook's question, the verdict,
a table per experiment (acked, lost, duplicates, failed, unknown, p99 ack
latency, runs), each expectation, Kafka version, the client the runs produced
through with its exact version (franz-go v1.22.3, java with kafka-clients
4.3.1, librdkafka@2.15.1 with confluent-kafka 2.15.1), backend, broker overrides,
topic configs, the runbook's sha256 and the sha256 of results.json, and a
link to the report.

The output depends on the evidence alone. A RUN_DIR that is a symbolic link
(latest) is resolved, so the link names the run the hashes belong to. The
link is relative to --relative-to (default: the current directory), e.g.
--relative-to docs/adr for a record kept there.

With --sweep NAME it prints instead what a sweep's runs under the site SITE
say of its settings (the runbook NAME.md with a sweep: in its front
matter): for each combination, release, client and experiment, over every
run of it in the site, the 95% bounds of the runs that lost, the
acknowledged messages lost, the duplicates and the refused writes, the
p50 and p99 ack latency, the combinations no other beats on both
durability and latency, and for each lossy combination the smallest
change of settings that lost nothing.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "markdown" && format != "json" {
				return usageErr("evidence: --format is markdown or json, not %q", format)
			}
			if sweep != "" {
				return printSweep(cmd.OutOrStdout(), args[0], sweep, format, relTo)
			}
			dir := resolveLatest(args[0])
			res, sum, err := loadResults(dir)
			if err != nil {
				return err
			}
			changed, err := report.RunbookChanged(dir, res)
			if err != nil {
				return err
			}
			if changed {
				fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: warning: %s does not match the runbook sha256 in results.json\n", filepath.Join(dir, res.Runbook.File))
			}
			link, err := relLink(relTo, filepath.Join(dir, report.IndexFile))
			if err != nil {
				return err
			}
			b := evidence.Summarize(res, sum, link)
			if format == "json" {
				return b.JSON(cmd.OutOrStdout())
			}
			return b.Markdown(cmd.OutOrStdout())
		},
	}
	c.Flags().StringVar(&format, "format", "markdown", "markdown or json")
	c.Flags().StringVar(&relTo, "relative-to", ".", "directory the report link is relative to")
	c.Flags().StringVar(&sweep, "sweep", "", "print the settings of the sweep NAME from the site given (its runbook's name)")
	return c
}

// printSweep prints the sweep name of the site root, its settings page
// linked relative to relTo.
func printSweep(w io.Writer, root, name, format, relTo string) error {
	link, err := relLink(relTo, filepath.Join(root, report.SettingsFile(name)))
	if err != nil {
		return err
	}
	s, err := report.LoadSweep(root, name, link)
	if err != nil {
		return usageErr("%v", err)
	}
	if format == "json" {
		return s.JSON(w)
	}
	return s.Markdown(w)
}

// writeSettings writes the settings page of the sweep name from every run
// of it in the site root, as root/<name>.settings.html.
func writeSettings(root, name string) (string, error) {
	page := filepath.Join(root, report.SettingsFile(name))
	s, err := report.LoadSweep(root, name, report.SettingsFile(name))
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := s.HTML(&buf); err != nil {
		return "", err
	}
	return page, atomicfile.WriteFile(page, buf.Bytes(), 0o644)
}

// writeAllSettings writes the settings page of every sweep with runs in
// the site root, and returns their paths.
func writeAllSettings(root string) ([]string, error) {
	names, err := site.Sweeps(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range names {
		p, err := writeSettings(root, name)
		if err != nil {
			return out, fmt.Errorf("the settings page of sweep %s: %w", name, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// loadResults reads DIR/results.json and returns it with its sha256,
// through the confined reader render uses (report.ReadResults). A
// directory without one is a usage error.
func loadResults(dir string) (*results.Results, string, error) {
	res, sum, err := report.ReadResults(dir)
	switch {
	case errors.Is(err, report.ErrNoResults):
		return nil, "", usageErr("%s: no %s here (give a run directory: OUT/<runbook>/kafka-<version>/<time>)", dir, results.FileName)
	case err != nil:
		return nil, "", &exitError{exitUsage, err}
	}
	return res, sum, nil
}

// resolveLatest replaces a RUN_DIR that is a symbolic link (the latest link
// kafkabook render keeps) by its target, so that what cites it names one run.
func resolveLatest(dir string) string {
	dir = filepath.Clean(dir)
	fi, err := os.Lstat(dir)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return dir
	}
	target, err := os.Readlink(dir)
	if err != nil {
		return dir
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(dir), target)
	}
	return target
}

// relLink is path relative to base, with forward slashes.
func relLink(base, path string) (string, error) {
	if base == "." && !filepath.IsAbs(path) {
		return filepath.ToSlash(filepath.Clean(path)), nil
	}
	ab, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	ap, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(ab, ap)
	if err != nil {
		return filepath.ToSlash(ap), nil
	}
	return filepath.ToSlash(rel), nil
}

// writeJUnit writes the expectations of sets as JUnit XML to path,
// atomically.
func writeJUnit(path string, sets []*results.Results, stderr io.Writer) error {
	var buf bytes.Buffer
	if err := evidence.JUnit(sets).Write(&buf); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing JUnit XML: %w", err)
	}
	fmt.Fprintf(stderr, "kafkabook: wrote %s\n", path)
	return nil
}

func junitCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "junit RUN_DIR... -o FILE",
		Short: "Write the expectations of existing run directories as JUnit XML, for CI",
		Long: `Junit writes JUnit XML for run directories already written: one testsuite
per run directory (a runbook on one Kafka version), one testcase per
expectation per run (classname <runbook>.kafka-<version>, name the
expression and the run number), a failure carrying the step's file:line and
the measured value, and an error for a run that did not complete. This is
what ` + "`kafkabook run --junit FILE`" + ` writes at the end of a run.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("junit: -o FILE is required")
			}
			var sets []*results.Results
			for _, dir := range args {
				res, _, err := loadResults(resolveLatest(dir))
				if err != nil {
					return err
				}
				sets = append(sets, res)
			}
			return writeJUnit(out, sets, cmd.ErrOrStderr())
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "the JUnit XML file to write")
	return c
}
