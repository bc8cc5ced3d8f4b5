package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/kafkabook/kafkabook/report"
	"github.com/kafkabook/kafkabook/results"
	"github.com/spf13/cobra"
)

func recheckCmd() *cobra.Command {
	var verbose bool
	c := &cobra.Command{
		Use:   "recheck DIR...",
		Short: "Derive every tally of stored evidence again with this build's checkers and show what differs",
		Long: `Recheck derives every read's tally (read steps and the final read) and
every consumer group's tally of each run directory under DIR again, from
what the run stored: the records each read found (read events of
events.jsonl), the ledgers and the transactions; the members' reports,
the effects the group's store counted, the committed offsets and a
transform's reads (group_input events); with the checkers of this
kafkabook. It prints every field
of a tally that differs from the one results.json recorded, and exits 1
when one does: a checker changed, or the evidence is not what its
verdicts say. No cluster is needed.

Evidence recorded before reads were stored has tallies that cannot be
derived: recheck counts them and names them with -v.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			start := time.Now()
			var dirs []string
			for _, a := range args {
				found, err := runDirs(a)
				if err != nil {
					return usageErr("recheck %s: %v", a, err)
				}
				dirs = append(dirs, found...)
			}
			out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
			var total results.RecheckReport
			var old []string
			for _, dir := range dirs {
				rep, err := recheckDir(dir)
				if err != nil {
					return &exitError{exitRun, fmt.Errorf("recheck %s: %w", dir, err)}
				}
				total.Rechecked += rep.Rechecked
				total.Underived += rep.Underived
				total.Differences = append(total.Differences, rep.Differences...)
				for _, d := range rep.Differences {
					fmt.Fprintf(out, "%s: %s\n", dir, d)
				}
				if rep.Underived > 0 {
					old = append(old, dir)
					if verbose {
						fmt.Fprintf(errw, "%s: %d tallies recorded before reads were stored: not derivable\n", dir, rep.Underived)
					}
				}
			}
			fmt.Fprintf(out, "recheck: %d run directories, %d tallies derived again, %d differences (%.1fs)\n",
				len(dirs), total.Rechecked, len(total.Differences), time.Since(start).Seconds())
			if len(old) > 0 {
				fmt.Fprintf(out, "recheck: %d tallies of %d run directories were recorded before reads were stored and cannot be derived (-v names them; run them again to re-judge them)\n",
					total.Underived, len(old))
			}
			if len(total.Differences) > 0 {
				return &exitError{exitRun, fmt.Errorf("recheck: %d fields of tallies differ from what was recorded", len(total.Differences))}
			}
			return nil
		},
	}
	c.Flags().BoolVarP(&verbose, "verbose", "v", false, "name every run directory whose tallies cannot be derived")
	return c
}

// runDirs are the run directories at or under dir: those holding a
// results.json, found without following symbolic links (latest is one).
func runDirs(dir string) ([]string, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, errors.New("not a directory")
	}
	var out []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && d.Name() == results.FileName {
			out = append(out, filepath.Dir(p))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// recheckDir derives the tallies of one run directory from its events
// and compares them with its results.json.
func recheckDir(dir string) (results.RecheckReport, error) {
	recorded, _, err := report.ReadResults(dir)
	if err != nil {
		return results.RecheckReport{}, err
	}
	stored, err := results.Replay(filepath.Join(dir, results.EventsFileName))
	if err != nil {
		return results.RecheckReport{}, err
	}
	// The verdicts are results.json's, the history the events'.
	for i := range stored.Runs {
		s := &stored.Runs[i]
		for _, r := range recorded.Runs {
			if r.Number != s.Number {
				continue
			}
			s.Tallies, s.Final = r.Tallies, r.Final
			for j := range s.Consumers {
				s.Consumers[j].Tally = nil
				for _, c := range r.Consumers {
					if c.Group == s.Consumers[j].Group {
						s.Consumers[j].Tally = c.Tally
					}
				}
			}
		}
	}
	return results.Recheck(stored), nil
}
