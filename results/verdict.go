package results

// Held reports whether every expectation of the run held. A run that stopped
// early or met an error does not hold, whatever its expectations said.
func (r Run) Held() bool {
	if r.Error != "" || !r.Complete {
		return false
	}
	for _, e := range r.Expectations {
		if !e.Held {
			return false
		}
	}
	return true
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
	var out []Expectation
	for _, e := range r.Expectations {
		if !e.Held {
			out = append(out, e)
		}
	}
	return out
}
