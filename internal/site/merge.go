package site

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

	"github.com/kafkabook/kafkabook/internal/safetext"
	"github.com/kafkabook/kafkabook/report"
	"github.com/kafkabook/kafkabook/results"
)

// CheckSources refuses sources that are missing, and a source that is
// the site itself or holds it (merging a tree into itself copies forever).
func CheckSources(srcs []string, into string) error {
	dst, err := filepath.Abs(into)
	if err != nil {
		return fmt.Errorf("--into %s: %v", into, err)
	}
	for _, src := range srcs {
		fi, err := os.Stat(src)
		if err != nil || !fi.IsDir() {
			return fmt.Errorf("merge %s: no such directory (merge takes the --out directories of `kafkabook run`)", src)
		}
		abs, err := filepath.Abs(src)
		if err != nil {
			return fmt.Errorf("merge %s: %v", src, err)
		}
		if abs == dst || strings.HasPrefix(dst, abs+string(filepath.Separator)) {
			return fmt.Errorf("merge %s: it holds --into %s; merge into a directory outside the sources", src, into)
		}
	}
	return nil
}

// A Merger copies the run directories of evidence trees into a site,
// counting what it did. A run is never overwritten or dropped: a run
// whose evidence is already there under its name is skipped; a different
// run under a name the site already uses is copied under that name plus
// "-" and the first 12 hex digits of the sha256 of its evidence. Only
// evidence is copied: the files a run directory is made of
// (results.Files), each loaded and checked before the site changes.
type Merger struct {
	Into                     string    // the site
	Log                      io.Writer // a line per run moved, renamed or refused
	Copied, Renamed, Skipped int
	Bisected                 int      // bisect records copied
	Failed                   []string // run directories that could not be merged
}

// Tree merges every run directory under src.
func (m *Merger) Tree(src string) {
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
			fmt.Fprintf(m.Log, "kafkabook: %v\n", err)
			m.Failed = append(m.Failed, p)
		}
		return filepath.SkipDir
	})
	if err != nil {
		fmt.Fprintf(m.Log, "kafkabook: merge %s: %v\n", src, err)
		m.Failed = append(m.Failed, src)
	}
}

// run merges one run directory: its evidence loaded and checked first,
// then copied to its place in the site, skipped when the same evidence is
// there, or copied under a name of its own.
func (m *Merger) run(src, dir string) error {
	r, files, err := readRun(dir)
	if err != nil {
		return fmt.Errorf("merge %s: %w", dir, err)
	}
	place, err := Place(dir, r)
	if err != nil {
		return fmt.Errorf("merge %s: %w", dir, err)
	}
	if rel, err := filepath.Rel(src, dir); err == nil && filepath.ToSlash(rel) != filepath.ToSlash(place) && strings.Count(filepath.ToSlash(rel), "/") == 2 {
		fmt.Fprintf(m.Log, "kafkabook: %s: its evidence places it at %s\n", dir, place)
	}
	sum, err := runDigest(dir, files)
	if err != nil {
		return err
	}
	dest := filepath.Join(m.Into, place)
	for i, name := range []string{dest, dest + "-" + sum[:12], dest + "-" + sum} {
		_, thereFiles, err := readRun(name)
		if errors.Is(err, fs.ErrNotExist) {
			if err := copyRun(dir, name, files); err != nil {
				return err
			}
			m.Copied++
			if i > 0 {
				m.Renamed++
				fmt.Fprintf(m.Log, "kafkabook: %s: %s holds other evidence; copied as %s\n", dir, dest, name)
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
			m.Skipped++
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
