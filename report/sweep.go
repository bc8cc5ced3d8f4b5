package report

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/kafkabook/kafkabook/internal/evidence"
	"github.com/kafkabook/kafkabook/results"
)

// SettingsFile is the name of a sweep's settings page at the site's root.
func SettingsFile(sweep string) string { return sweep + ".settings.html" }

// LoadSweep sums every run of the sweep name in the site root (the run
// directories of its combinations, <name>.<combination>/kafka-*/<time>,
// read with the confined reader; the latest links and directories with no
// results yet left out), each named
// by its path under root so that the sum reads the same wherever the site
// lies. link is the settings page's link the Markdown block ends with.
func LoadSweep(root, name, link string) (evidence.Sweep, error) {
	series, err := filepath.Glob(filepath.Join(root, name+".*", "kafka-*"))
	if err != nil {
		return evidence.Sweep{}, err
	}
	var sets []*results.Results
	var dirs []string
	for _, s := range series {
		ents, err := os.ReadDir(s)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.IsDir() || e.Type()&os.ModeSymlink != 0 || e.Name() == LatestLink {
				continue
			}
			dir := filepath.Join(s, e.Name())
			res, _, err := ReadResults(dir)
			if errors.Is(err, ErrNoResults) {
				continue // a run still going, or killed before it wrote any
			}
			if err != nil {
				return evidence.Sweep{}, fmt.Errorf("sweep %s: %w", name, err)
			}
			if res.Runbook.Sweep != name {
				continue
			}
			rel, _ := filepath.Rel(root, dir)
			sets, dirs = append(sets, res), append(dirs, path.Clean(filepath.ToSlash(rel)))
		}
	}
	if len(sets) == 0 {
		return evidence.Sweep{}, fmt.Errorf("%s: no runs of a sweep %q (they go under %s/%s.<combination>/)", root, name, root, name)
	}
	s := evidence.SweepOf(name, sets, dirs)
	s.Link = link
	return s, nil
}
