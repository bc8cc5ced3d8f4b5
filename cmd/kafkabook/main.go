// Command kafkabook runs Markdown runbooks of Kafka durability experiments
// against a real KRaft cluster and publishes the evidence as HTML reports.
// This package holds flags, subcommands and exit codes, nothing else.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/kafkabook/kafkabook/internal/subcommand"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/spf13/cobra"
)

// Exit codes, as README.md and `kafkabook run --help` promise users.
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
	// A client process kafkabook started from its own binary, a relay in
	// a Kubernetes pod, a node's power-loss layer or link delayer (see
	// package subcommand).
	subcommand.Run(os.Args)
	// The ledger of a large run is most of the heap and holds no pointers:
	// collecting at 50% growth instead of 100% keeps the peak near the live
	// data (a million messages) at little cost, unless GOGC says otherwise.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go onInterrupt(sigs, cancel, os.Stderr, os.Exit)
	root := rootCmd()
	root.SetOut(os.Stdout)
	root.SetErr(os.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(os.Stderr, "kafkabook:", msg)
	}
	os.Exit(exitCode(err))
}

// onInterrupt cancels the commands' context at the first Ctrl-C (or
// SIGTERM), so that they stop and clean up; a second one exits at once,
// leaving what cleanup did not finish to the next kafkabook command.
func onInterrupt(sigs <-chan os.Signal, cancel context.CancelFunc, stderr io.Writer, exit func(int)) {
	<-sigs
	cancel()
	fmt.Fprintln(stderr, "kafkabook: interrupted: cleaning up (interrupt again to exit at once)")
	<-sigs
	fmt.Fprintln(stderr, "kafkabook: interrupted again: exiting without finishing cleanup")
	fmt.Fprintln(stderr, "kafkabook: the next kafkabook command removes what is left of a private cluster")
	exit(exitRun)
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
		Args:          cobra.ArbitraryArgs,
		RunE:          group,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{exitUsage, fmt.Errorf("%v (see `%s --help`)", err, c.CommandPath())}
	})
	// -v is run's --verbose; cobra would give it to --version here.
	root.Flags().Bool("version", false, "print kafkabook's version")
	root.SetHelpCommand(helpCmd(root))
	root.AddCommand(checkCmd(), runCmd(), planCmd(), bisectCmd(), mergeCmd(), renderCmd(), recheckCmd(), evidenceCmd(), compareCmd(), junitCmd(), kafkaCmd(), clusterCmd(), imageCmd(), clientCmd())
	return root
}

// group runs a command that only groups others: alone it shows its help;
// with an argument that names no subcommand it is a usage error (cobra
// would show help and exit 0, or exit 2).
func group(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return c.Help()
	}
	hint := ""
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2
	}
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		hint = fmt.Sprintf("; did you mean %q?", s[0])
	}
	return usageErr("unknown command %q for %q%s (see `%s --help`)", args[0], c.CommandPath(), hint, c.CommandPath())
}

// exactArgs and minArgs return usage errors with exit code 3.
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

// progress is the command's progress printer, on its stderr.
func progress(c *cobra.Command) cluster.Progress {
	return poll.Printer(c.ErrOrStderr(), "")
}
