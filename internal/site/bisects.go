package site

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kafkabook/kafkabook/internal/bisect"
)

// Bisects copies the bisect records of a tree (<runbook>/bisect-*.json,
// written by kafkabook bisect) into the site, after its runs: a record
// is copied only when every run directory it rests on is in the site
// under the name it gives (a run merged under another name would leave
// the record pointing at nothing), and never over a different record.
func (m *Merger) Bisects(src string) {
	paths, _ := filepath.Glob(filepath.Join(src, "*", "bisect-*.json"))
	for _, p := range paths {
		if err := m.bisect(p); err != nil {
			fmt.Fprintf(m.Log, "kafkabook: %v\n", err)
			m.Failed = append(m.Failed, p)
		}
	}
}

func (m *Merger) bisect(p string) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("merge %s: %w", p, err)
	}
	rec, err := bisect.DecodeRecord(data)
	if err != nil {
		return fmt.Errorf("merge %s: %w", p, err)
	}
	for _, pr := range rec.Probes {
		for _, d := range pr.Dirs {
			if _, _, err := readRun(filepath.Join(m.Into, filepath.FromSlash(d))); err != nil {
				return fmt.Errorf("merge %s: its run %s is not in %s under that name: %w", p, d, m.Into, err)
			}
		}
	}
	dest := filepath.Join(m.Into, rec.Runbook, filepath.Base(p))
	if there, err := os.ReadFile(dest); err == nil {
		if bytes.Equal(there, data) {
			return nil
		}
		return fmt.Errorf("merge %s: %s holds another bisect of the same releases; left out", p, dest)
	}
	m.Bisected++
	return copyFile(p, dest)
}
