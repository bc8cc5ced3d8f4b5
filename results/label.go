package results

// What the evidence says of one experiment: a topic as labelled in the
// runbook, in one run or over all of them.

// Labels returns the experiment labels (topic names as written in the
// runbook) in order of first use across all runs.
func (r *Results) Labels() []string {
	var out []string
	seen := map[string]bool{}
	add := func(l string) {
		if l != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	for _, run := range r.Runs {
		for _, t := range run.Topics {
			add(t.Label)
		}
		for _, t := range run.Tallies {
			add(t.Label)
		}
	}
	return out
}

// Tally returns the run's word on label: its final read when the run got
// that far, else the last `read` step of label (a snapshot, in which
// messages not visible yet are unseen, never lost).
func (r Run) Tally(label string) (Tally, bool) {
	for _, t := range r.Final {
		if t.Label == label {
			return t, true
		}
	}
	for i := len(r.Tallies) - 1; i >= 0; i-- {
		if r.Tallies[i].Label == label {
			return r.Tallies[i], true
		}
	}
	return Tally{}, false
}

// Messages returns the ledger entries of every topic of the run labelled
// label, in ledger order, as Message values: about 150 bytes each, so
// readers of large ledgers should iterate Topic.All or read Topic.Ledger's
// columns instead.
func (r Run) Messages(label string) []Message {
	n := 0
	for _, t := range r.Topics {
		if t.Label == label {
			n += t.Len()
		}
	}
	out := make([]Message, 0, n)
	for _, t := range r.Topics {
		if t.Label == label {
			for _, m := range t.All() {
				out = append(out, m)
			}
		}
	}
	return out
}

// Count returns how many ledger entries of label have status s.
func (r Run) Count(label string, s Status) int {
	n := 0
	for _, t := range r.Topics {
		if t.Label != label {
			continue
		}
		for _, m := range t.Messages {
			if m.Status == s {
				n++
			}
		}
		code := statusCode(s)
		if l := t.Ledger; l != nil {
			for _, f := range l.flags {
				if f&flagStatus == code {
					n++
				}
			}
		}
	}
	return n
}

// Lost returns how many acknowledged messages of label the run proved lost
// (see Tally), and false when the run never read label.
func (r Run) Lost(label string) (int, bool) {
	t, ok := r.Tally(label)
	return len(t.Lost), ok
}

// LostPerRun returns, for each run in order, the messages of label lost in
// that run; -1 marks a run that never read label.
func (r *Results) LostPerRun(label string) []int {
	out := make([]int, len(r.Runs))
	for i, run := range r.Runs {
		n, ok := run.Lost(label)
		if !ok {
			n = -1
		}
		out[i] = n
	}
	return out
}

// TotalLost returns the messages of label lost over all runs that read it.
func (r *Results) TotalLost(label string) int {
	n := 0
	for _, l := range r.LostPerRun(label) {
		if l > 0 {
			n += l
		}
	}
	return n
}

// CountAcked returns how many of ids are acknowledged entries of label's
// ledger (an id acknowledged twice counts twice), without expanding the
// ledger: what a report needs to tell duplicated acknowledged messages
// from others.
func (r Run) CountAcked(label string, ids []string) int {
	if len(ids) == 0 {
		return 0
	}
	var tab idTable
	want := map[int64]bool{}
	for _, id := range ids {
		want[tab.key(id)] = true
	}
	n := 0
	for _, t := range r.Topics {
		if t.Label != label {
			continue
		}
		for _, m := range t.Messages {
			if m.Status == StatusOK && want[tab.key(m.ID)] {
				n++
			}
		}
		if l := t.Ledger; l != nil {
			for i, f := range l.flags {
				if f&flagStatus == 0 && want[l.key(i, &tab)] {
					n++
				}
			}
		}
	}
	return n
}
