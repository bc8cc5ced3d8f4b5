package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kafkabook/kafkabook/report"
	"github.com/kafkabook/kafkabook/results"
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
the site index once.

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
			if err := checkMergeSources(args, into); err != nil {
				return err
			}
			var m merger
			m.into, m.log = into, cmd.ErrOrStderr()
			for _, src := range args {
				m.tree(src)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged into %s: %d run(s) copied, %d renamed apart, %d already there\n", into, m.copied, m.renamed, m.skipped)
			opts.Generator = "kafkabook " + toolVersion()
			opts.Context = cmd.Context()
			opts.Progress = func(m string) { fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: %s\n", m) }
			opts.Warn = func(err error) { fmt.Fprintf(cmd.ErrOrStderr(), "kafkabook: warning: %v\n", err) }
			if err := report.RenderSite(into, opts); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "rendered %s\n", filepath.Join(into, report.IndexFile))
			if len(m.failed) > 0 {
				return &exitError{exitRun, fmt.Errorf("%d run(s) not merged: %s", len(m.failed), strings.Join(m.failed, ", "))}
			}
			return nil
		},
	}
	c.Flags().StringVar(&into, "into", "", "the site to merge into, created when missing (e.g. output)")
	c.Flags().BoolVar(&opts.SingleFile, "single-file", false, "inline echarts into every page (self-contained files)")
	return c
}

// checkMergeSources refuses sources that are missing, and a source that is
// the site itself or holds it (merging a tree into itself copies forever).
func checkMergeSources(srcs []string, into string) error {
	dst, err := filepath.Abs(into)
	if err != nil {
		return usageErr("--into %s: %v", into, err)
	}
	for _, src := range srcs {
		fi, err := os.Stat(src)
		if err != nil || !fi.IsDir() {
			return usageErr("merge %s: no such directory (merge takes the --out directories of `kafkabook run`)", src)
		}
		abs, err := filepath.Abs(src)
		if err != nil {
			return usageErr("merge %s: %v", src, err)
		}
		if abs == dst || strings.HasPrefix(dst, abs+string(filepath.Separator)) {
			return usageErr("merge %s: it holds --into %s; merge into a directory outside the sources", src, into)
		}
	}
	return nil
}

// merger copies run directories into a site, counting what it did.
type merger struct {
	into                     string
	log                      io.Writer
	copied, renamed, skipped int
	failed                   []string // run directories that could not be merged
}

// tree merges every run directory under src.
func (m *merger) tree(src string) {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		// latest is a link to a run; a copy that followed it (a CI
		// artifact) is that run again, never a run of its own.
		if p != src && (d.Name() == "assets" || d.Name() == report.LatestLink || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !fileExists(filepath.Join(p, results.FileName)) && !fileExists(filepath.Join(p, results.EventsFileName)) {
			return nil
		}
		if err := m.run(src, p); err != nil {
			fmt.Fprintf(m.log, "kafkabook: %v\n", err)
			m.failed = append(m.failed, p)
		}
		return filepath.SkipDir
	})
	if err != nil {
		fmt.Fprintf(m.log, "kafkabook: merge %s: %v\n", src, err)
		m.failed = append(m.failed, src)
	}
}

// run merges one run directory: copied to its place in the site, skipped
// when the same evidence is there, or copied under a name of its own.
func (m *merger) run(src, dir string) error {
	place, err := runPlace(src, dir)
	if err != nil {
		return err
	}
	sum, err := runDigest(dir)
	if err != nil {
		return err
	}
	dest := filepath.Join(m.into, place)
	for i, name := range []string{dest, dest + "-" + sum[:12], dest + "-" + sum} {
		there, err := runDigest(name)
		if errors.Is(err, fs.ErrNotExist) {
			if err := copyRun(dir, name); err != nil {
				return err
			}
			m.copied++
			if i > 0 {
				m.renamed++
				fmt.Fprintf(m.log, "kafkabook: %s: %s holds other evidence; copied as %s\n", dir, dest, name)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if there == sum {
			m.skipped++
			return nil
		}
	}
	return fmt.Errorf("merge %s: %s and its digest-named copies hold other evidence; left out", dir, dest)
}

// runPlace is where a run directory goes in a site: its path under the
// source when that is <runbook>/kafka-<version>/<time>, else the same
// made from its evidence (a source that is itself a run directory).
func runPlace(src, dir string) (string, error) {
	rel, err := filepath.Rel(src, dir)
	if err != nil {
		return "", err
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) == 3 && strings.HasPrefix(parts[1], "kafka-") {
		return filepath.FromSlash(rel), nil
	}
	r, err := loadEvidence(dir)
	if err != nil {
		return "", fmt.Errorf("merge %s: %w", dir, err)
	}
	name, version := r.Runbook.Name, r.Provenance.Kafka
	if name == "" || strings.HasPrefix(name, ".") || strings.ContainsAny(name, `/\`) || version == "" || strings.ContainsAny(version, `/\`) {
		return "", fmt.Errorf("merge %s: its evidence names runbook %q, Kafka %q: no place for it in a site", dir, name, version)
	}
	return filepath.Join(name, "kafka-"+version, filepath.Base(dir)), nil
}

// loadEvidence reads a run directory's results.json, or replays its
// events.jsonl when a crash left only that.
func loadEvidence(dir string) (*results.Results, error) {
	r, err := results.Load(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return results.Replay(filepath.Join(dir, results.EventsFileName))
	}
	return r, err
}

// runDigest is the sha256 of a run directory's evidence: every regular
// file's path and content, what rendering derives from it (pages and the
// run's summary.json) left out, since merge renders them again. A symbolic link or other special file in a run
// directory is an error: evidence is plain files.
func runDigest(dir string) (string, error) {
	if _, err := os.Lstat(dir); err != nil {
		return "", err
	}
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(d.Name(), ".html") || d.Name() == report.SummaryFile {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("merge: %s is not a regular file; a run directory holds plain files only", p)
		}
		rel, _ := filepath.Rel(dir, p)
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fh := sha256.New()
		if _, err := io.Copy(fh, f); err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%x\n", filepath.ToSlash(rel), fh.Sum(nil))
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyRun copies a run directory to dest, which must not exist: into a
// hidden temporary directory beside it first (the site skips dot
// directories), renamed into place when complete, so an interrupted merge
// never leaves half a run under a run's name.
func copyRun(src, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	b := make([]byte, 4)
	rand.Read(b)
	tmp := filepath.Join(filepath.Dir(dest), fmt.Sprintf(".merge-%s-%x", filepath.Base(dest), b))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(tmp, rel)
		if d.IsDir() {
			return os.Mkdir(to, 0o755)
		}
		return copyFile(p, to)
	})
	if err == nil {
		err = os.Rename(tmp, dest)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("merge: copying %s to %s: %w", src, dest, err)
	}
	return nil
}

// copyFile copies one regular file, synced to disk.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
