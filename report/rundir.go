package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kafkabook/kafkabook/results"
)

// runDir is a run directory opened for reading its evidence. Every file is
// read through an os.Root at the directory and must be a regular file in it:
// a symbolic link is refused even when it points inside, so a page shows
// what the run wrote and never a file the directory merely points at.
type runDir struct {
	dir  string
	root *os.Root
}

func openRunDir(dir string) (*runDir, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return &runDir{dir: dir, root: root}, nil
}

func (d *runDir) Close() error { return d.root.Close() }

// path names a file of the directory in messages.
func (d *runDir) path(name string) string { return filepath.Join(d.dir, name) }

// exists reports whether the directory holds an entry called name, of
// whatever kind (open refuses what it must not follow).
func (d *runDir) exists(name string) bool {
	_, err := d.root.Lstat(name)
	return err == nil
}

// open opens the regular file name of the directory. A name with a
// separator, a symbolic link or anything but a regular file is refused.
func (d *runDir) open(name string) (*os.File, error) {
	if !filepath.IsLocal(name) || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("report: %s names a file outside the run directory %s; kafkabook stores evidence beside results.json and reads nothing else", name, d.dir)
	}
	fi, err := d.root.Lstat(name)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("report: %s is a symbolic link, and render follows none: kafkabook writes evidence as plain files; replace the link with the file the run wrote", d.path(name))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("report: %s is not a regular file", d.path(name))
	}
	f, err := d.root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if st, err := f.Stat(); err != nil || !os.SameFile(fi, st) {
		f.Close()
		return nil, fmt.Errorf("report: %s changed while it was opened; render again", d.path(name))
	}
	return f, nil
}

// read returns the content of the regular file name and its sha256.
func (d *runDir) read(name string) ([]byte, string, error) {
	f, err := d.open(name)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	h := sha256.New()
	data, err := io.ReadAll(io.TeeReader(f, h))
	if err != nil {
		return nil, "", fmt.Errorf("report: %w", err)
	}
	return data, hex.EncodeToString(h.Sum(nil)), nil
}

// hash returns the sha256 of the regular file name without keeping it.
func (d *runDir) hash(name string) (string, error) {
	f, err := d.open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// runEvidence is what a page is made of: the results, where they came
// from, and the stored runbook.
type runEvidence struct {
	r        *results.Results
	from     evidenceFile
	src      source
	resultsV int // schema of results.json as written, when the page needs it (see noFinal)
}

// evidenceFile names the file a run's results were read from, with its
// sha256, so that a summary can tell whether it still describes it.
type evidenceFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// loadResults reads the run's results: results.json, or a replay of
// events.jsonl when only that survived.
func (d *runDir) loadResults() (*results.Results, evidenceFile, int, error) {
	if !d.exists(results.FileName) && d.exists(results.EventsFileName) {
		f, err := d.open(results.EventsFileName)
		if err != nil {
			return nil, evidenceFile{}, 0, err
		}
		defer f.Close()
		h := sha256.New()
		r, err := results.ReplayFrom(io.TeeReader(f, h))
		if err != nil {
			return nil, evidenceFile{}, 0, fmt.Errorf("results: %s: %w", d.path(results.EventsFileName), err)
		}
		return r, evidenceFile{results.EventsFileName, sum(h)}, r.Schema, nil
	}
	data, digest, err := d.read(results.FileName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, evidenceFile{}, 0, fmt.Errorf("report: %s holds neither %s nor %s", d.dir, results.FileName, results.EventsFileName)
	}
	if err != nil {
		return nil, evidenceFile{}, 0, err
	}
	r, err := results.Decode(d.path(results.FileName), data)
	if err != nil {
		return nil, evidenceFile{}, 0, err
	}
	return r, evidenceFile{results.FileName, digest}, writtenSchema(r, data), nil
}

func sum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// writtenSchema is the schema version results.json was written with, looked
// up only when no run made a final read (results.Decode upgrades version 1
// files, and only the page's note needs to know).
func writtenSchema(r *results.Results, data []byte) int {
	for _, run := range r.Runs {
		if len(run.Final) > 0 {
			return r.Schema
		}
	}
	var probe struct {
		Schema int `json:"schema"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return r.Schema
	}
	return probe.Schema
}

// readRun reads everything a run's page shows. The stored runbook must be
// the one the results name: a copy whose sha256 is not the one recorded in
// the provenance fails the run, since the page's claim is that this
// runbook produced this evidence.
func readRun(dir string) (*runEvidence, error) {
	d, err := openRunDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	r, from, schema, err := d.loadResults()
	if err != nil {
		return nil, err
	}
	src, err := d.runbook(r)
	if err != nil {
		return nil, err
	}
	return &runEvidence{r: r, from: from, src: src, resultsV: schema}, nil
}

// runbook is the stored runbook, checked against the sha256 the results
// recorded, or a note saying why there is none to show.
func (d *runDir) runbook(r *results.Results) (source, error) {
	name := r.Runbook.File
	if name == "" {
		return source{Note: "The runbook's source was not stored with this evidence; its steps are shown as they ran."}, nil
	}
	b, digest, err := d.read(name)
	if errors.Is(err, fs.ErrNotExist) {
		return source{Note: "The stored runbook " + name + " is missing from this evidence; the steps are shown as they ran."}, nil
	}
	if err != nil {
		return source{}, err
	}
	want := strings.ToLower(r.Runbook.SHA256)
	switch {
	case want == "":
		return source{Note: "The results record no sha256 of the runbook, so the stored copy " + name + " cannot be tied to this evidence and is not shown; the steps are shown as they ran."}, nil
	case want != digest:
		return source{}, fmt.Errorf("report: %s does not match the runbook that produced this evidence (sha256 %s, recorded in %s as %s): it was changed after the run; restore the runbook the run stored, or run it again",
			d.path(name), digest, results.FileName, want)
	}
	return source{Text: b}, nil
}

// removePage takes a run's page and summary out of the site, for a run
// whose evidence can no longer be read: no stale page stays published as
// if it were valid. Only files and links of the directory itself are
// removed (a link, not what it points at).
func removePage(dir string) error {
	d, err := openRunDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	var errs []error
	for _, name := range []string{IndexFile, SummaryFile} {
		if fi, err := d.root.Lstat(name); err == nil && !fi.IsDir() {
			if err := d.root.Remove(name); err != nil {
				errs = append(errs, fmt.Errorf("report: the stale page could not be removed: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}
