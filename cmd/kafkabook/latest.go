package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/report"
	"github.com/kafkabook/kafkabook/results"
)

// linkLatestComplete points each runbook/release's latest link at its
// newest complete run, by start time; where no run completed, the link
// RenderSite made (the newest run) stays.
func linkLatestComplete(site string) error {
	releases, _ := filepath.Glob(filepath.Join(site, "*", "kafka-*"))
	for _, rel := range releases {
		ents, err := os.ReadDir(rel)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		best, bestStart := "", time.Time{}
		for _, e := range ents {
			dir := filepath.Join(rel, e.Name())
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || !fileExists(filepath.Join(dir, results.FileName)) {
				continue
			}
			r, err := results.Load(dir)
			if err != nil || !r.Complete {
				continue
			}
			if s := r.Provenance.Start; best == "" || s.After(bestStart) || s.Equal(bestStart) && e.Name() > best {
				best, bestStart = e.Name(), s
			}
		}
		if best == "" {
			continue
		}
		link := filepath.Join(rel, report.LatestLink)
		if target, err := os.Readlink(link); err == nil && target == best {
			continue
		}
		if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink == 0 {
			return fmt.Errorf("merge: %s exists and is not a symbolic link; remove it and merge again", link)
		}
		tmp := link + ".tmp"
		os.Remove(tmp)
		if err := os.Symlink(best, tmp); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if err := os.Rename(tmp, link); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("merge: %w", err)
		}
	}
	return nil
}
