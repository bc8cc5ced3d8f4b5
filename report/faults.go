package report

import (
	"fmt"
	"strings"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// faultRun is one run's faults as the page lists them: each injection,
// when and by which step, and what the cluster showed of it, so that a
// reader sees how the run knows its faults landed. A run with an unproven
// fault is left out of the bounds over runs (results.Run.Unproven), and
// Untested says so.
type faultRun struct {
	Run      int
	Open     bool // shown unfolded: the first run, and every run with an unproven fault
	Faults   []faultView
	Untested string
}

type faultView struct {
	At, Pos  string
	What     string // the fault in words (results.Fault.Words)
	Observed string // what the cluster showed of it; "" when the fault says nothing
	Unproven bool
}

// faultsOf lists the faults of every run that injected any.
func faultsOf(r *results.Results) []faultRun {
	var out []faultRun
	for i, run := range r.Runs {
		if len(run.Faults) == 0 {
			continue
		}
		fr := faultRun{Run: run.Number, Open: i == 0}
		for _, f := range run.Faults {
			fr.Faults = append(fr.Faults, faultView{At: relTime(run, f.At), Pos: f.Pos, What: runbook.FaultWords(f), Observed: f.Observed, Unproven: f.Unproven})
		}
		if u := run.Unproven(); len(u) > 0 {
			fr.Open = true
			fr.Untested = untested(u)
		}
		out = append(out, fr)
	}
	return out
}

// untested says why a run is left out of the bounds over runs: each
// unproven event with what was read. An event that ends a window (heal,
// an "in force" reading at the run's end) carries the window's fault in
// its reading.
func untested(unproven []results.Fault) string {
	what := make([]string, len(unproven))
	for i, f := range unproven {
		what[i] = runbook.FaultWords(f) + " (" + f.Observed + ")"
	}
	return fmt.Sprintf("the cluster did not show a fault landing: %s; this run is no test of it, and the bounds over runs leave it out", strings.Join(what, "; "))
}

// leftOut names the runs the bounds over runs leave out, "" when none.
func leftOut(r *results.Results) string {
	var runs []string
	for _, run := range r.Runs {
		if len(run.Unproven()) > 0 {
			runs = append(runs, fmt.Sprint(run.Number))
		}
	}
	switch len(runs) {
	case 0:
		return ""
	case 1:
		return "run " + runs[0] + " is left out: a fault of it did not show landing (see Faults)"
	}
	return "runs " + strings.Join(runs, ", ") + " are left out: a fault of each did not show landing (see Faults)"
}
