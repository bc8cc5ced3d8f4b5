package report

import "errors"

// UpdateSite adds the run in dir to the site out, at the cost of that one
// run: it renders the run's page and summary, rebuilds out/index.html from
// the summaries every other run left beside its results (reading a run's
// results only when its summary is missing or no longer matches them),
// rewrites only the comparison pages that involve the run, and points the
// run's latest link. `kafkabook run` calls it once per run; RenderSite
// rebuilds everything.
//
// The run's own problems are returned as a *RunError for dir, and then
// nothing else is written. Other runs' problems are handled as by
// RenderSite.
func UpdateSite(out, dir string, opts Options) error {
	if isRunDir(out) {
		return Render(out, opts)
	}
	opts, err := siteOptions(out, opts)
	if err != nil {
		return err
	}
	ev, err := readRun(dir)
	if err != nil {
		return &RunError{Dir: dir, Err: errors.Join(err, removePage(dir))}
	}
	own, err := renderRun(dir, ev, opts)
	if err != nil {
		return &RunError{Dir: dir, Err: err}
	}
	runs, problems := siteRuns(out, func(d string) (runSummary, bool, error) {
		if sameDir(d, dir) {
			return own, true, nil
		}
		return summaryOf(d)
	})
	return finishSite(out, runs, problems, func(a, b siteRun) bool { return a.Fresh || b.Fresh }, opts)
}

// summaryOf is the stored summary of the run in dir, or else one made from
// its results and stored for the next update. Its page is not rendered.
func summaryOf(dir string) (runSummary, bool, error) {
	d, err := openRunDir(dir)
	if err != nil {
		return runSummary{}, false, err
	}
	defer d.Close()
	if s, ok := d.storedSummary(); ok {
		return s, false, nil
	}
	r, from, _, err := d.loadResults()
	if err != nil {
		return runSummary{}, false, err
	}
	s := summarize(r, nil)
	// The stored summary only saves the next update this read: a failure
	// to store it costs that, not the run's place in the index.
	_ = writeSummary(dir, from, s)
	return s, true, nil
}

// UpdateIndex writes the site's index again from the runs' stored
// summaries, rendering no run: for what the index shows besides runs (a
// bisect record written after its runs).
func UpdateIndex(out string, opts Options) error {
	opts, err := siteOptions(out, opts)
	if err != nil {
		return err
	}
	runs, problems := siteRuns(out, summaryOf)
	return finishSite(out, runs, problems, func(a, b siteRun) bool { return a.Fresh || b.Fresh }, opts)
}
