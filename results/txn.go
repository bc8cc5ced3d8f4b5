package results

import (
	"encoding/json"
	"time"
)

// KindTransactions is the event kind of a TransactionsEvent: the outcomes
// of a transactional producer's transactions, streamed as they end.
const KindTransactions = "transactions"

// TxnOutcome is how a transaction ended, as its producer saw it.
type TxnOutcome string

const (
	// TxnCommitted: EndTransaction with commit returned no error; its
	// records are acknowledged (status ok in the ledger).
	TxnCommitted TxnOutcome = "committed"
	// TxnAborted: the producer aborted it, on purpose (--abort-every) or
	// because one of its records failed, and the abort returned no error;
	// its records are failed in the ledger.
	TxnAborted TxnOutcome = "aborted"
	// TxnUnknown: the end of the transaction got no definite answer (a
	// commit that errored, the run ended first); its records are unknown
	// in the ledger, and the final read says which way it went.
	TxnUnknown TxnOutcome = "unknown"
)

// Transaction is one transaction of a transactional produce step: its
// records (message ids, in the order they were sent), who wrote it and how
// it ended.
type Transaction struct {
	Topic           string     `json:"topic"`            // real topic name
	Label           string     `json:"label"`            // name in the runbook
	TransactionalID string     `json:"transactional_id"` // derived from the topic, the step's line and the run
	N               int        `json:"n"`                // 1-based, within its producer
	ProducerID      int64      `json:"producer_id"`      // -1 when no record got one
	Epoch           int16      `json:"epoch"`            // producer epoch; -1 when unknown
	Outcome         TxnOutcome `json:"outcome"`
	AbortOnPurpose  bool       `json:"abort_on_purpose,omitempty"` // --abort-every chose it
	Error           string     `json:"error,omitempty"`            // why it was aborted or is unknown
	Start           time.Time  `json:"start"`
	End             time.Time  `json:"end"`
	IDs             []string   `json:"ids"`
}

// TransactionsEvent is the data of a transactions event: transactions of
// one topic, appended to the run's Transactions in order.
type TransactionsEvent struct {
	Transactions []Transaction `json:"transactions"`
}

// addTransactions folds a transactions event into run n.
func (f *folder) addTransactions(n int, data json.RawMessage) error {
	var x TransactionsEvent
	if err := json.Unmarshal(data, &x); err != nil {
		return err
	}
	r := f.run(n)
	r.Transactions = append(r.Transactions, x.Transactions...)
	return nil
}

// TransactionsOf returns the transactions of the topic labelled label.
func (r Run) TransactionsOf(label string) []Transaction {
	var out []Transaction
	for _, t := range r.Transactions {
		if t.Label == label {
			out = append(out, t)
		}
	}
	return out
}

// Isolation is a read's isolation level, as runbooks and evidence spell
// it; the zero value reads as ReadUncommitted, Kafka's default.
type Isolation string

// Isolation levels of a read.
const (
	ReadUncommitted Isolation = "read_uncommitted"
	ReadCommitted   Isolation = "read_committed"
)

// Level is the level i reads at: read_committed, or read_uncommitted for
// any other (the zero value included).
func (i Isolation) Level() Isolation {
	if i == ReadCommitted {
		return i
	}
	return ReadUncommitted
}
