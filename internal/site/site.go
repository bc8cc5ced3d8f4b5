// Package site is the layout of an evidence tree (the --out of `kafkabook
// run`, the published output/): where a run directory goes, what names a
// runbook's directory may have, the cells a CI matrix runs, and merging
// trees written on other machines into one. It decides places and copies
// evidence; rendering the pages is package report's.
package site

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/safetext"
	"github.com/kafkabook/kafkabook/report"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// RunbookName is the directory name a runbook's evidence goes under: its
// file name without the extension. A name that could climb out of the
// site or hide in it (`..`, `.x`, empty), or that the site uses itself,
// is refused.
func RunbookName(path string) (string, error) {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if why := NameProblem(name); why != "" {
		return "", fmt.Errorf("%s: the runbook's name %q cannot name its evidence directory (%s): rename the file", path, name, why)
	}
	return name, nil
}

// Reserved are the names a site uses beside its runbooks' directories.
var Reserved = []string{"assets", report.IndexFile, report.LatestLink, report.SummaryFile, "comparisons.json"}

// NameProblem says why name cannot be a directory of a site (a runbook's,
// under which its evidence goes), or "" when it can.
func NameProblem(name string) string {
	switch {
	case name == "" || strings.HasPrefix(name, "."):
		return "it is empty or starts with a dot"
	case strings.ContainsAny(name, `/\`) || !safetext.IsLine(name):
		return "it holds a path separator, a line break or another control character"
	case slices.Contains(Reserved, name):
		return "the site uses that name itself"
	}
	return ""
}

// SeriesDir is the directory of a release's runs with a client under a
// runbook's: kafka-4.3.1 for franz-go (the default, so that series from
// before clients were a dimension keep their place), kafka-4.3.1-java-4.3.1
// for java@4.3.1.
func SeriesDir(version, client string) string {
	if client == "" || client == runbook.FranzGo {
		return "kafka-" + version
	}
	return "kafka-" + version + "-" + strings.ReplaceAll(client, "@", "-")
}

// stampRE matches a run directory's name as run makes it (the start time,
// -N when two started in one second, results.NewRunDir) and Merge renames
// it (-digest).
var stampRE = regexp.MustCompile(`^\d{8}T\d{6}Z(-\d{1,3})?(-[0-9a-f]{12}|-[0-9a-f]{64})?$`)

// kafkaVersionRE is a Kafka release as evidence names it.
var kafkaVersionRE = regexp.MustCompile(`^\d+\.\d+\.\d+$`)

// Place is where a run directory goes in a site, from its evidence, as run
// puts it: <runbook>/<SeriesDir>/<time>. Where it sits now does not
// decide: a java run filed under franz-go's series goes to java's, and a
// run directory given directly (merge .) lands where run would have put it.
func Place(dir string, r *results.Results) (string, error) {
	name, version, client := r.Runbook.Name, r.Provenance.Kafka, r.Provenance.Client
	if why := NameProblem(name); why != "" {
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
	return filepath.Join(name, SeriesDir(version, client), stamp), nil
}

// HasRuns says whether the site at root holds a run of the runbook on
// release version with client: a run directory in its series.
func HasRuns(root, runbookName, version, client string) bool {
	ents, err := os.ReadDir(filepath.Join(root, runbookName, SeriesDir(version, client)))
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.IsDir() && stampRE.MatchString(e.Name()) {
			return true
		}
	}
	return false
}

// Sweeps lists the sweeps with runs in the site root, by name: the
// runbook directories whose evidence names a sweep (results.json's
// runbook.sweep), read from one run of each.
func Sweeps(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() || !strings.Contains(e.Name(), ".") {
			continue // a sweep's combinations are named <sweep>.<combination>
		}
		runs, _ := filepath.Glob(filepath.Join(root, e.Name(), "kafka-*", "2*", results.FileName))
		if len(runs) == 0 {
			continue
		}
		r, _, err := report.ReadResults(filepath.Dir(runs[0])) // the confined reader: no link followed
		if err != nil || r.Runbook.Sweep == "" || slices.Contains(out, r.Runbook.Sweep) {
			continue
		}
		out = append(out, r.Runbook.Sweep)
	}
	return out, nil
}
