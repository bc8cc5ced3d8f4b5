package results

// Held reports whether every expectation of the run held. A run that stopped
// early or met an error does not hold, whatever its expectations said.
func (r Run) Held() bool {
	if r.Error != "" || !r.Complete {
		return false
	}
	for _, e := range r.Expectations {
		if !e.Held && !e.Undecided {
			return false
		}
	}
	return true
}

// Undecided returns the expectations of the run that its runs so far did
// not decide.
func (r Run) Undecided() []Expectation {
	return filter(r.Expectations, func(e Expectation) bool { return e.Undecided })
}

// Verdict counts the runs whose expectations all held, out of all runs.
func (r *Results) Verdict() (held, runs int) {
	for _, run := range r.Runs {
		if run.Held() {
			held++
		}
	}
	return held, len(r.Runs)
}

// FailedExpectations returns the expectations of the run that did not hold.
func (r Run) FailedExpectations() []Expectation {
	return filter(r.Expectations, func(e Expectation) bool { return !e.Held && !e.Undecided })
}

// Unproven returns the faults of the run that the cluster did not show
// landing (Fault.Unproven): a kill whose JVM was still there, a cut that
// a handshake crossed. Such a run is no test of its faults, so the
// bounds over runs leave it out (lossCounts) and the report says why.
func (r Run) Unproven() []Fault {
	return filter(r.Faults, func(f Fault) bool { return f.Unproven })
}

// filter is the elements of xs that keep says to keep, in order; nil
// when none.
func filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}
