package report

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/kafkabook/kafkabook/internal/bisect"
)

// siteBisect is a bisect record of a runbook as the index states it.
type siteBisect struct {
	Ends    string // "4.0.0 → 4.4.0"
	Judge   string
	Finding string // "clean up to 4.0.2, last-known-leader from 4.1.0"
	Probes  []siteProbe
	// OnlyBefore and OnlyAfter name the sides: explain's causes found on
	// one side of the change only.
	Before, After         string
	OnlyBefore, OnlyAfter []string
}

type siteProbe struct {
	Release, Outcome string
	Runs             int
	Link             string // the first run directory's page, relative to the index
}

// siteBisects reads the bisect records under out/<runbook>/; a record it
// cannot read is a warning, never the index's failure.
func siteBisects(out, runbook string, warn func(error)) []siteBisect {
	paths, _ := filepath.Glob(filepath.Join(out, runbook, "bisect-*.json"))
	var bs []siteBisect
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err == nil {
			var rec bisect.Record
			if rec, err = bisect.DecodeRecord(data); err == nil {
				bs = append(bs, newSiteBisect(rec))
				continue
			}
		}
		if warn != nil {
			warn(fmt.Errorf("%s: %w", p, err))
		}
	}
	return bs
}

func newSiteBisect(rec bisect.Record) siteBisect {
	b := siteBisect{Ends: rec.Releases[0] + " → " + rec.Releases[len(rec.Releases)-1], Judge: rec.Judge,
		Before: rec.Before, After: rec.After, OnlyBefore: rec.OnlyBefore, OnlyAfter: rec.OnlyAfter}
	outcome := map[string]string{}
	for _, p := range rec.Probes {
		outcome[p.Release] = string(p.Outcome)
		sp := siteProbe{Release: p.Release, Outcome: string(p.Outcome), Runs: p.Runs}
		if len(p.Dirs) > 0 {
			sp.Link = path.Join(p.Dirs[0], IndexFile)
		}
		b.Probes = append(b.Probes, sp)
	}
	switch {
	case rec.Stopped != "":
		b.Finding = "stopped before it could name a change (" + rec.Stopped + ")"
	case rec.Changed:
		b.Finding = fmt.Sprintf("%s up to %s, %s from %s", outcome[rec.Before], rec.Before, outcome[rec.After], rec.After)
	default:
		b.Finding = fmt.Sprintf("%s on both ends: no change between them", outcome[rec.Before])
	}
	return b
}
