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
	"regexp"
	"strings"

	"github.com/kafkabook/kafkabook/internal/safetext"
	"github.com/kafkabook/kafkabook/report"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
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

// run merges one run directory: its evidence loaded and checked first,
// then copied to its place in the site, skipped when the same evidence is
// there, or copied under a name of its own.
func (m *merger) run(src, dir string) error {
	r, files, err := readRun(dir)
	if err != nil {
		return fmt.Errorf("merge %s: %w", dir, err)
	}
	place, err := runPlace(dir, r)
	if err != nil {
		return fmt.Errorf("merge %s: %w", dir, err)
	}
	if rel, err := filepath.Rel(src, dir); err == nil && filepath.ToSlash(rel) != filepath.ToSlash(place) && strings.Count(filepath.ToSlash(rel), "/") == 2 {
		fmt.Fprintf(m.log, "kafkabook: %s: its evidence places it at %s\n", dir, place)
	}
	sum, err := runDigest(dir, files)
	if err != nil {
		return err
	}
	dest := filepath.Join(m.into, place)
	for i, name := range []string{dest, dest + "-" + sum[:12], dest + "-" + sum} {
		_, thereFiles, err := readRun(name)
		if errors.Is(err, fs.ErrNotExist) {
			if err := copyRun(dir, name, files); err != nil {
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
			return fmt.Errorf("merge %s: %s is there and unreadable: %w", dir, name, err)
		}
		there, err := runDigest(name, thereFiles)
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

// readRun loads a run directory's evidence as render will (report.LoadRun:
// a schema kafkabook knows, within bounded cost, read through the
// confined reader) and lists the files it is made of that are there
// (results.Files), each a plain file of the directory.
func readRun(dir string) (*results.Results, []string, error) {
	if _, err := os.Lstat(dir); err != nil {
		return nil, nil, err
	}
	r, err := report.LoadRun(dir)
	if err != nil {
		return nil, nil, err
	}
	var files []string
	for _, name := range r.Files() {
		if !evidenceName(name) {
			return nil, nil, fmt.Errorf("its evidence names the file %q, which is no plain name in the run directory", name)
		}
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, nil, fmt.Errorf("%s is not a regular file; a run directory holds plain files only", filepath.Join(dir, name))
		}
		files = append(files, name)
	}
	return r, files, nil
}

// evidenceName says whether name, as evidence names a file, is a path
// inside the run directory: slash-separated plain names (a consumer's
// store may sit in a subdirectory), none starting with a dot, no control
// character.
func evidenceName(name string) bool {
	if name == "" || strings.Contains(name, `\`) || !safetext.IsLine(name) {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || strings.HasPrefix(part, ".") {
			return false
		}
	}
	return true
}

// stampRE matches a run directory's name as run makes it (the start time,
// -N when two started in one second) and merge renames it (-digest).
var stampRE = regexp.MustCompile(`^\d{8}T\d{6}Z(-\d{1,3})?(-[0-9a-f]{12}|-[0-9a-f]{64})?$`)

// runPlace is where a run directory goes in a site, from its evidence, as
// run would have put it: <runbook>/kafka-<version>[-<client>]/<time>. Its
// place under the source does not decide: a java run filed under
// franz-go's series goes to java's, and a run directory given directly
// (merge .) lands where run would have put it.
func runPlace(dir string, r *results.Results) (string, error) {
	name, version, client := r.Runbook.Name, r.Provenance.Kafka, r.Provenance.Client
	if why := siteNameProblem(name); why != "" {
		return "", fmt.Errorf("its evidence names runbook %q, which cannot name a site's directory (%s)", name, why)
	}
	if !kafkaVersionRE.MatchString(version) {
		return "", fmt.Errorf("its evidence names Kafka %q, not a release number like 4.3.1", version)
	}
	if client != "" {
		if _, _, err := runbook.ParseClient(client); err != nil {
			return "", fmt.Errorf("its evidence names %w", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	stamp := filepath.Base(abs)
	if !stampRE.MatchString(stamp) {
		if r.Provenance.Start.IsZero() {
			return "", fmt.Errorf("the directory's name %q is no run's time, and its evidence records no start", stamp)
		}
		stamp = r.Provenance.Start.UTC().Format("20060102T150405Z")
	}
	return filepath.Join(name, clientDir(version, client), stamp), nil
}

// kafkaVersionRE is a Kafka release as evidence names it.
var kafkaVersionRE = regexp.MustCompile(`^\d+\.\d+\.\d+$`)

// runDigest is the sha256 of a run directory's evidence: each of its
// evidence files' name and content (readRun lists them); the pages and
// summaries made from it are not evidence, and merge renders them again.
func runDigest(dir string, files []string) (string, error) {
	h := sha256.New()
	for _, name := range files {
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return "", err
		}
		fh := sha256.New()
		_, err = io.Copy(fh, f)
		f.Close()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%x\n", name, fh.Sum(nil))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyRun copies a run directory's evidence files to dest, which must not
// exist: into a hidden temporary directory beside it first (the site
// skips dot directories), renamed into place when complete, so an
// interrupted merge never leaves half a run under a run's name. Nothing
// else of the source is copied: no page, no .htaccess, no file the
// evidence does not name.
func copyRun(src, dest string, files []string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	b := make([]byte, 4)
	rand.Read(b)
	tmp := filepath.Join(filepath.Dir(dest), fmt.Sprintf(".merge-%s-%x", filepath.Base(dest), b))
	err := os.Mkdir(tmp, 0o755)
	for _, name := range files {
		if err != nil {
			break
		}
		to := filepath.Join(tmp, filepath.FromSlash(name))
		if err = os.MkdirAll(filepath.Dir(to), 0o755); err == nil {
			err = copyFile(filepath.Join(src, filepath.FromSlash(name)), to)
		}
	}
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
