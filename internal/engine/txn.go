package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// stableWait bounds how long the final read waits for the last stable
// offset of a transactional topic to pass its sentinels: a transaction
// left open is aborted by its coordinator after the transaction timeout
// (franz-go's default: 40s).
const stableWait = 90 * time.Second

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
func (r *runner) flushTxns(t *topicState) {
	t.mu.Lock()
	batch := slices.Clone(t.txns.all[t.txns.emitted:])
	t.txns.emitted = len(t.txns.all)
	t.mu.Unlock()
	if len(batch) > 0 {
		r.ev.Emit(results.KindTransactions, r.num, results.TransactionsEvent{Transactions: batch})
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

// checkTxns checks a read of a topic against its transactions; nil when no
// transactional producer wrote to it.
func checkTxns(txns []results.Transaction, ledger results.Topic, isolation string, rd kafka.Read) []results.TxnCheck {
	if len(txns) == 0 {
		return nil
	}
	return []results.TxnCheck{results.CheckTransactions(txns, ledger, results.TxnRead{
		Isolation: isolationOf(isolation), Records: rd.Records, HighWatermarks: rd.HW, LastStable: rd.LastStable,
	})}
}

// isolationOf spells a read's isolation level, read_uncommitted when unset.
func isolationOf(s string) string {
	if s == results.ReadCommitted {
		return s
	}
	return results.ReadUncommitted
}

// txnLines is what a read prints of its transaction checks.
func txnLines(cs []results.TxnCheck) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s (last stable offset %s, high watermark %s): transactions committed %d, aborted %d, unknown %d; records seen of committed %d, of aborted %d, of unknown %d",
			c.Isolation, showOffsets(c.LastStable), showOffsets(c.HighWatermarks), c.Committed, c.Aborted, c.Unknown, c.SeenCommitted, c.SeenAborted, c.SeenUnknown))
		if c.Isolation == results.ReadUncommitted && c.SeenAborted > 0 {
			out = append(out, fmt.Sprintf("  the %d records of aborted transactions found are in the log as expected: read_uncommitted returns them (counted failed but present above), read_committed does not", c.SeenAborted))
		}
		for _, a := range c.AbortedReads[:min(len(c.AbortedReads), 3)] {
			out = append(out, fmt.Sprintf("  aborted read: %s at partition %d offset %d, of transaction %d of %s (aborted)", a.ID, a.Partition, a.Offset, a.Txn.N, a.Txn.TransactionalID))
		}
		for _, t := range c.Torn[:min(len(c.Torn), 3)] {
			m := t.Missing[0]
			out = append(out, fmt.Sprintf("  torn: committed transaction %d of %s seen in part (%d of %d records); e.g. %s missing at partition %d offset %d below %d", t.Txn.N, t.Txn.TransactionalID, len(t.Seen), len(t.Seen)+len(t.Missing), m.ID, m.Partition, m.Offset, m.HighWatermark))
		}
		if n := len(c.LostCommitted); n > 0 {
			l := c.LostCommitted[0]
			out = append(out, fmt.Sprintf("  lost committed %d: e.g. %s, acknowledged at partition %d offset %d, the read reached %d", n, l.ID, l.Partition, l.Offset, l.HighWatermark))
		}
		for _, f := range c.OutOfOrder[:min(len(c.OutOfOrder), 3)] {
			out = append(out, fmt.Sprintf("  out of order: %s sent %s before %s, found at offsets %d and %d of partition %d", f.TransactionalID, f.Before, f.After, f.BeforeOffset, f.AfterOffset, f.Partition))
		}
	}
	return out
}

// finalTxnView reads a transactional topic the other way than the final
// tally did (read_uncommitted), so the evidence shows what each reader
// sees, and checks it.
func (r *runner) finalTxnView(ctx context.Context, label string, seeds kafka.Brokers, ledger results.Topic, log *stepLog) (results.TxnCheck, error) {
	rd, err := kafka.ReadAll(ctx, seeds, r.realName(label), kafka.ReadOptions{
		Timeout: readTimeout, Settle: settleLimit, Quiet: settleQuiet, Progress: log.progress, Isolation: results.ReadUncommitted,
	})
	if err != nil {
		return results.TxnCheck{}, fmt.Errorf("final read_uncommitted read of %s: %w", label, err)
	}
	return checkTxns(r.topic(label).transactions(), ledger, results.ReadUncommitted, rd)[0], nil
}
