package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/kafkabook/kafkabook/internal/atomicfile"
)

// FileName is the name of the evidence file inside a run directory.
const FileName = "results.json"

// Write stores r as dir/results.json, atomically and durably (see
// atomicfile.WriteFile): a reader never sees half a file.
// A zero Schema is set to SchemaVersion. Timelines that still hold every
// sample taken are stored as change points (see Sampling).
func (r *Results) Write(dir string) error {
	if r.Schema == 0 {
		r.Schema = SchemaVersion
	}
	out := *r
	out.Runs = slices.Clone(r.Runs)
	for i := range out.Runs {
		out.Runs[i].compactTimelines()
	}
	data, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return fmt.Errorf("results: encode: %w", err)
	}
	data = append(data, '\n')
	if err := atomicfile.WriteFile(filepath.Join(dir, FileName), data, 0o644); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// ErrSchema is wrapped by Load's error when results.json has a schema version
// this build does not know.
var ErrSchema = errors.New("unsupported schema version")

// Load reads dir/results.json. It refuses files whose schema version it does
// not know, rather than render evidence it might misread.
func Load(dir string) (*Results, error) {
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	return Decode(path, data)
}

// Decode parses the content of a results.json; name is used in errors.
// The schema version is checked before the content is trusted: a file of
// an unknown version is refused even when it happens to decode. Older
// versions are upgraded (see "Older versions" in docs/results-schema.md).
// Decoding is total: a file that is not what kafkabook writes is refused
// with what was wrong, and never makes Decode allocate more than a small
// multiple of its size (see checkCounts).
func Decode(name string, data []byte) (*Results, error) {
	var probe struct {
		Schema *int `json:"schema"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("results: %s: %w", name, err)
	}
	if _, err := checkCounts(data, 0, len(data)); err != nil {
		return nil, fmt.Errorf("results: %s: %w", name, err)
	}
	var r *Results
	switch v := probe.Schema; {
	case v == nil:
		return nil, fmt.Errorf("results: %s: no schema version: not a kafkabook results.json", name)
	case *v == 1:
		up, err := decodeV1(data)
		if err != nil {
			return nil, fmt.Errorf("results: %s (schema version 1): %w", name, err)
		}
		r = up
	case *v >= 2 && *v <= SchemaVersion:
		// Version 2 differs from 3 only in holding each ledger as a list
		// of messages, which Topic still reads; version 3 from 4 only in
		// holding every sample of its timelines, compacted below.
		r = &Results{}
		if err := json.Unmarshal(data, r); err != nil {
			return nil, fmt.Errorf("results: %s: %w", name, err)
		}
	default:
		return nil, fmt.Errorf("results: %s: %w %d (this kafkabook reads versions 1 to %d; use a kafkabook that knows version %d)",
			name, ErrSchema, *v, SchemaVersion, *v)
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("results: %s: %w", name, err)
	}
	r.Schema = SchemaVersion
	r.Compact()
	return r, nil
}

// NewRunDir creates the evidence directory of a run started at start under
// parent: parent/<UTC time>, or parent/<UTC time>-2, -3... when a run that
// started in the same second took the name first. The directory is created
// exclusively, so two runs never share or overwrite one.
func NewRunDir(parent string, start time.Time) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("results: %w", err)
	}
	base := filepath.Join(parent, start.UTC().Format("20060102T150405Z"))
	for n := 1; ; n++ {
		dir := base
		if n > 1 {
			dir = fmt.Sprintf("%s-%d", base, n)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) || n >= 1000 {
			return "", fmt.Errorf("results: %w", err)
		}
	}
}

// Files are the names of the files a run directory is made of, as its
// evidence names them: results.json, the event stream (plain or
// archived), the stored runbook and each consumer group's store. What
// else a directory holds is not evidence (pages and summaries are made
// from it); merge copies these and nothing else.
func (r *Results) Files() []string {
	files := []string{FileName, EventsFileName, ArchivedEventsFileName}
	if r.Runbook.File != "" {
		files = append(files, r.Runbook.File)
	}
	for _, run := range r.Runs {
		for _, c := range run.Consumers {
			if c.Store != "" && !slices.Contains(files, c.Store) {
				files = append(files, c.Store)
			}
		}
	}
	return files
}
