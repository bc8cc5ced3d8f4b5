// Command kafkabook runs Markdown runbooks of Kafka durability experiments
// against a real KRaft cluster and publishes the evidence as HTML reports.
// This package holds flags, subcommands and exit codes, nothing else.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes, as DESIGN.md §4 promises users.
const (
	exitOK     = 0 // every expectation held
	exitExpect = 1 // an expectation failed
	exitRun    = 2 // the run could not complete
	exitUsage  = 3 // bad runbook or arguments; nothing ran
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErr marks an error as the user's input being wrong.
func usageErr(format string, args ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := rootCmd()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(os.Stderr, "kafkabook:", msg)
	}
	os.Exit(exitCode(err))
}

// exitCode is the process exit code for an error from a command: the one
// it carries, else 2 (the run could not complete).
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitRun
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "kafkabook",
		Short:         "Run Kafka durability runbooks against a real cluster and publish the evidence",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       toolVersion(),
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{exitUsage, fmt.Errorf("%v (see `%s --help`)", err, c.CommandPath())}
	})
	root.AddCommand(checkCmd(), runCmd(), renderCmd(), kafkaCmd(), clusterCmd())
	return root
}

// noArgs and friends return usage errors with exit code 3.
func exactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErr("%s takes %d argument(s), got %d (see `%s --help`)", c.CommandPath(), n, len(args), c.CommandPath())
		}
		return nil
	}
}

func minArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErr("%s needs at least %d argument(s) (see `%s --help`)", c.CommandPath(), n, c.CommandPath())
		}
		return nil
	}
}

// progress prints a progress line to stderr.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "· "+format+"\n", args...)
}
