package results

// The measures of consume-transform-produce, listed in Measures after the
// others: they read the exactly-once check of a transform group's tally.
func init() {
	Measures = append(Measures,
		eosIDs("eos_duplicates", "input records of a transform group whose derived record OUT holds more than once among committed records (exactly once: 0)",
			(*EOSCheck).DuplicateIDs),
		eosIDs("eos_missing", "input records of a transform group without a derived record among OUT's committed records: processing lost (exactly once: 0)",
			(*EOSCheck).MissingIDs),
		Measure{Name: "fenced", Summary: "members of a transform group whose producer a successor with the same transactional id fenced (a frozen member resumed: the zombie case), by their fenced events",
			Group: true, Of: fencedMembers},
	)
}

// fencedMembers counts the members of group label that reported a fenced
// event, as its tally says.
func fencedMembers(r Run, label string) (int64, bool) {
	c, ok := r.Consumer(label)
	if !ok || c.Tally == nil {
		return 0, false
	}
	return int64(len(c.Tally.Fenced)), true
}

func eosIDs(name, summary string, f func(*EOSCheck) []string) Measure {
	return idMeasure(name, summary, true, func(r Run, label string) ([]string, bool) {
		c, ok := r.Consumer(label)
		if !ok || c.Tally == nil || c.Tally.EOS == nil {
			return nil, false
		}
		return f(c.Tally.EOS), true
	})
}
