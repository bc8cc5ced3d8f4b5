package engine

import (
	"fmt"
	"slices"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// txnLog is a topic's transactions, as its transactional producers ended
// them: all of them, for the checker, and how many were written to the
// event stream. Guarded by the topicState's mutex.
type txnLog struct {
	all     []results.Transaction
	emitted int
}

// addTxn records one transaction's outcome; the flusher writes it out
// after its records.
func (t *topicState) addTxn(x results.Transaction) {
	t.mu.Lock()
	t.txns.all = append(t.txns.all, x)
	t.mu.Unlock()
}

// transactions is every transaction of the topic so far.
func (t *topicState) transactions() []results.Transaction {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.txns.all)
}

// flushTxns writes the transactions of a topic not yet in the event
// stream, in one transactions event, the way the ledger's batches go.
func (w *workload) flushTxns(t *topicState) {
	t.mu.Lock()
	batch := slices.Clone(t.txns.all[t.txns.emitted:])
	t.txns.emitted = len(t.txns.all)
	t.mu.Unlock()
	if len(batch) > 0 {
		w.ev.Emit(results.KindTransactions, w.num, results.TransactionsEvent{Transactions: batch})
	}
}

// transactionalID is the transactional.id of a produce step: the topic's
// name in this run and the step's line, so that no two steps nor two runs
// share one (which would fence each other).
func transactionalID(t *topicState, s runbook.Step) string {
	return fmt.Sprintf("kafkabook-%s-L%d", t.name, s.Pos.Line)
}

// transactionOf is a producer's transaction as the evidence holds it.
func transactionOf(t *topicState, id string, x kafka.TxnResult) results.Transaction {
	tx := results.Transaction{
		Topic: t.name, Label: t.label, TransactionalID: id, N: x.N,
		ProducerID: x.ProducerID, Epoch: x.Epoch, Outcome: x.Outcome, AbortOnPurpose: x.OnPurpose,
		Error: x.Err, Start: x.Start.UTC(), End: x.End.UTC(), IDs: make([]string, 0, len(x.Nums)),
	}
	for _, n := range x.Nums {
		tx.IDs = append(tx.IDs, kafka.MessageID(n))
	}
	return tx
}

// txnSummary counts a producer's transactions by outcome.
type txnSummary struct {
	committed, aborted, onPurpose, unknown int
	producerID                             int64
	epoch                                  int16
}

func (s *txnSummary) add(x kafka.TxnResult) {
	switch x.Outcome {
	case results.TxnCommitted:
		s.committed++
	case results.TxnAborted:
		s.aborted++
		if x.OnPurpose {
			s.onPurpose++
		}
	default:
		s.unknown++
	}
	if x.ProducerID >= 0 {
		s.producerID, s.epoch = x.ProducerID, x.Epoch
	}
}

func (s *txnSummary) line(id string) string {
	return fmt.Sprintf("transactions of %s (producer id %d, epoch %d): committed %d, aborted %d (%d on purpose), unknown %d",
		id, s.producerID, s.epoch, s.committed, s.aborted, s.onPurpose, s.unknown)
}

// txnLine is one transaction as the console lists it.
func txnLine(x kafka.TxnResult) string {
	ids := ""
	if len(x.Nums) > 0 {
		ids = fmt.Sprintf(" %s..%s", kafka.MessageID(x.Nums[0]), kafka.MessageID(x.Nums[len(x.Nums)-1]))
	}
	line := fmt.Sprintf("  transaction %d%s %s", x.N, ids, x.Outcome)
	switch {
	case x.OnPurpose:
		line += " (on purpose)"
	case x.Err != "":
		line += ": " + x.Err
	}
	return line
}
