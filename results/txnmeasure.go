package results

// The measures of transactions, listed in Measures after the others: they
// read the transaction checks of the topic's tally (the final read's when
// there is one) and the transactions the producers recorded.
func init() {
	Measures = append(Measures,
		txnCheckIDs("aborted_reads", "records of aborted transactions a read_committed read returned (should be 0)", true,
			func(c TxnCheck) []string { return c.AbortedReadIDs() }),
		Measure{Name: "torn", Summary: "committed transactions a read_committed read saw in part, the rest below its last stable offset (should be 0)",
			Of: txnCheckCount(true, func(c TxnCheck) int { return len(c.Torn) })},
		txnCheckIDs("lost_committed", "records of committed transactions absent from the read although it passed their offset", false,
			func(c TxnCheck) []string { return lossIDs(c.LostCommitted) }),
		Measure{Name: "txn_order", Summary: "pairs of one producer's committed records found in a partition in the reverse of the order it sent them",
			Of: txnCheckCount(false, func(c TxnCheck) int { return len(c.OutOfOrder) })},
		txnOutcome("txn_committed", "transactions their producer committed", TxnCommitted),
		txnOutcome("txn_aborted", "transactions their producer aborted, on purpose or after a failed record", TxnAborted),
		txnOutcome("txn_unknown", "transactions whose end got no definite answer", TxnUnknown),
	)
}

// txnChecks are the transaction checks of the topic's tally; with
// committedOnly, the read_committed ones alone. false when there is none.
func txnChecks(r Run, label string, committedOnly bool) ([]TxnCheck, bool) {
	t, ok := r.Tally(label)
	if !ok {
		return nil, false
	}
	var out []TxnCheck
	for _, c := range t.Transactions {
		if !committedOnly || c.Isolation == ReadCommitted {
			out = append(out, c)
		}
	}
	return out, len(out) > 0
}

func txnCheckIDs(name, summary string, committedOnly bool, f func(TxnCheck) []string) Measure {
	return idMeasure(name, summary, false, func(r Run, label string) ([]string, bool) {
		cs, ok := txnChecks(r, label, committedOnly)
		seen := map[string]bool{}
		var ids []string
		for _, c := range cs {
			for _, id := range f(c) {
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
		return sortedIDs(ids), ok
	})
}

func txnCheckCount(committedOnly bool, f func(TxnCheck) int) func(Run, string) (int64, bool) {
	return func(r Run, label string) (int64, bool) {
		cs, ok := txnChecks(r, label, committedOnly)
		n := 0
		for _, c := range cs {
			n = max(n, f(c))
		}
		return int64(n), ok
	}
}

func txnOutcome(name, summary string, o TxnOutcome) Measure {
	return Measure{Name: name, Summary: summary, Of: func(r Run, label string) (int64, bool) {
		n := 0
		for _, t := range r.TransactionsOf(label) {
			if t.Outcome == o {
				n++
			}
		}
		return int64(n), true
	}}
}
