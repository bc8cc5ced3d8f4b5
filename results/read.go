package results

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"
)

// A read's verdicts are derived from what it found, and what it found is
// stored: every read of a topic (a read step, the final read, the final
// read's second view of a transactional topic) is a read event holding
// its records, the offsets it reached and how much of the ledger and the
// transactions it was judged against. The engine derives its tally from
// that event (ReadEvent.Tally), and Recheck derives it again from the
// stored history, so a checker fixed tomorrow re-judges every published
// run.

// ReadEvent is the data of a read event: one read of a topic, record by
// record.
type ReadEvent struct {
	Topic string `json:"topic"` // real name
	Label string `json:"label"` // as the runbook writes it
	// Pos is the read step's file:line:col; "" for the final read.
	Pos string `json:"pos,omitempty"`
	// Via is the node read through, when the step named one.
	Via string `json:"via,omitempty"`
	// Final marks the final read; View its second view of a
	// transactional topic (read_uncommitted), which checks the
	// transactions and makes no tally of its own.
	Final     bool      `json:"final,omitempty"`
	View      bool      `json:"view,omitempty"`
	Isolation Isolation `json:"isolation,omitempty"`
	At        time.Time `json:"at"`
	Settled   bool      `json:"settled"`
	// HighWatermarks and LastStable are what the read reached, by
	// partition.
	HighWatermarks map[int32]int64 `json:"high_watermarks"`
	LastStable     map[int32]int64 `json:"last_stable,omitempty"`
	// LedgerLen is how many of the topic's ledger entries existed when
	// the read was judged (the first LedgerLen, in the order the ledger
	// holds them), Txns how many of its transactions.
	LedgerLen int      `json:"ledger_len"`
	Txns      int      `json:"txns"`
	Records   *Records `json:"records"`
}

// Tally is the read's verdict on the messages of ledger (the topic's
// ledger, of which the read saw the first LedgerLen entries) given txns
// (the topic's transactions, of which it saw the first Txns) and what
// earlier reads of the run found (earlier; nil: none). earlier is not
// changed: Remember the read's records after.
func (e ReadEvent) Tally(ledger Topic, txns []Transaction, earlier *Seen) Tally {
	ledger = ledger.prefix(e.LedgerLen)
	txns = txns[:min(e.Txns, len(txns))]
	bound := e.HighWatermarks
	if e.Isolation == ReadCommitted {
		bound = e.LastStable // records of open transactions above it are unseen, not lost
	}
	t := ClassifyRead(ledger, e.Records, bound, earlier, e.Final)
	t.At, t.Settled, t.Final, t.Via, t.Pos = e.At, e.Settled, e.Final, e.Via, e.Pos
	if e.Isolation == ReadCommitted {
		t.Isolation = e.Isolation
	}
	if len(txns) > 0 {
		t.Transactions = []TxnCheck{e.TxnCheck(ledger, txns)}
	}
	return t
}

// TxnCheck is the read checked against the topic's transactions (of which
// it saw the first Txns).
func (e ReadEvent) TxnCheck(ledger Topic, txns []Transaction) TxnCheck {
	ledger = ledger.prefix(e.LedgerLen)
	txns = txns[:min(e.Txns, len(txns))]
	return CheckTransactions(txns, ledger, TxnRead{
		Isolation: e.Isolation.Level(), Records: e.Records, HighWatermarks: e.HighWatermarks, LastStable: e.LastStable,
	})
}

// prefix is the topic with only the first n entries of its ledger.
func (t Topic) prefix(n int) Topic {
	if n >= t.Len() {
		return t
	}
	if k := len(t.Messages); n <= k {
		t.Messages, t.Ledger = t.Messages[:n:n], nil
		return t
	}
	t.Ledger = t.Ledger.Prefix(n - len(t.Messages))
	return t
}

// recordsJSON is Records as a read event stores them: columns of
// comma-separated integers with runs as v*k (as a ledger's), about a byte
// a record for a steady producer's partition.
type recordsJSON struct {
	Count     int               `json:"count"`
	Partition string            `json:"partition"` // as is
	Offset    string            `json:"offset"`    // minus the offset of the record before in the same partition
	Num       string            `json:"num"`       // message number minus the one before (0 for an id of ids)
	IDs       map[string]string `json:"ids,omitempty"`
}

// MarshalJSON writes the columns (see recordsJSON).
func (r *Records) MarshalJSON() ([]byte, error) {
	if r == nil {
		r = &Records{}
	}
	var part, off, num rle
	j := recordsJSON{Count: r.Len()}
	last := map[int32]int64{}
	var prev int64
	for i, k := range r.key {
		p := r.Partition[i]
		part.add(int64(p))
		off.add(r.Offset[i] - last[p])
		last[p] = r.Offset[i]
		if k < 0 {
			if j.IDs == nil {
				j.IDs = map[string]string{}
			}
			j.IDs[strconv.Itoa(i)] = r.ids.id(k)
			num.add(0)
			continue
		}
		num.add(k - prev)
		prev = k
	}
	j.Partition, j.Offset, j.Num = part.String(), off.String(), num.String()
	return json.Marshal(j)
}

// UnmarshalJSON reads the columns (see recordsJSON), checking every
// column's length before allocating.
func (r *Records) UnmarshalJSON(data []byte) error {
	var j recordsJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	if b := ledgerBudget(len(data)); j.Count < 0 || int64(j.Count) > b {
		return fmt.Errorf("records: count %d in %d bytes, want 0 up to the %d they can hold", j.Count, len(data), b)
	}
	n := j.Count
	for _, c := range []struct{ name, s string }{{"partition", j.Partition}, {"offset", j.Offset}, {"num", j.Num}} {
		if err := unrle("records "+c.name, c.s, n, nil); err != nil {
			return err
		}
	}
	*r = Records{Partition: make([]int32, n), Offset: make([]int64, n), key: make([]int64, n)}
	if err := unrle("records partition", j.Partition, n, func(i int, v int64) { r.Partition[i] = int32(v) }); err != nil {
		return err
	}
	last := map[int32]int64{}
	if err := unrle("records offset", j.Offset, n, func(i int, v int64) {
		p := r.Partition[i]
		r.Offset[i] = last[p] + v
		last[p] = r.Offset[i]
	}); err != nil {
		return err
	}
	var prev int64
	if err := unrle("records num", j.Num, n, func(i int, v int64) { prev += v; r.key[i] = prev }); err != nil {
		return err
	}
	// An id that is not a message number: its position's num is 0 and
	// does not move the running number.
	for _, s := range slices.Sorted(maps.Keys(j.IDs)) {
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 || i >= n {
			return fmt.Errorf("records ids: bad index %q of %d records", s, n)
		}
		r.key[i] = r.ids.keyOther(j.IDs[s])
	}
	for i := range n {
		if r.Partition[i] < 0 || r.Offset[i] < 0 || (r.key[i] < 0 && j.IDs[strconv.Itoa(i)] == "") {
			return fmt.Errorf("records: record %d at partition %d offset %d, number %d: want 0 or more", i, r.Partition[i], r.Offset[i], r.key[i])
		}
	}
	return nil
}
