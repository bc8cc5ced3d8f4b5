package engine

import (
	"fmt"

	"github.com/kafkabook/kafkabook/results"
)

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
