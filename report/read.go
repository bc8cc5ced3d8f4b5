package report

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/kafkabook/kafkabook/results"
)

// ErrNoResults is ReadResults' error for a directory without a
// results.json.
var ErrNoResults = errors.New("no " + results.FileName)

// ReadResults reads a run directory's results.json as render does: a
// regular file in the directory, no symbolic link followed, decoded
// within results' bounds. It returns the results and the file's sha256,
// so that the commands that summarize or compare a stranger's evidence
// read nothing outside it and never wait on a FIFO or a device.
func ReadResults(dir string) (*results.Results, string, error) {
	d, err := openRunDir(dir)
	if err != nil {
		return nil, "", err
	}
	defer d.Close()
	if !d.exists(results.FileName) {
		return nil, "", fmt.Errorf("%s: %w", dir, ErrNoResults)
	}
	r, from, _, err := d.loadResults()
	if err != nil {
		return nil, "", err
	}
	return r, from.SHA256, nil
}

// RunbookChanged says whether the runbook stored in a run directory
// differs from the one the results record (its sha256), reading it as
// render does; false when none was stored or none is recorded.
func RunbookChanged(dir string, r *results.Results) (bool, error) {
	name := r.Runbook.File
	if name == "" || r.Runbook.SHA256 == "" {
		return false, nil
	}
	d, err := openRunDir(dir)
	if err != nil {
		return false, err
	}
	defer d.Close()
	digest, err := d.hash(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return digest != strings.ToLower(r.Runbook.SHA256), nil
}

// LoadRun reads a run directory's results as render does: results.json,
// or a replay of events.jsonl when only that survived, through the
// confined reader, so that merge takes a stranger's evidence in only
// once it has loaded it the way every page will.
func LoadRun(dir string) (*results.Results, error) {
	d, err := openRunDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	r, _, _, err := d.loadResults()
	return r, err
}
