package results

import (
	"cmp"
	"slices"
)

// TxnCheck is what one read of a topic written by transactional producers
// saw of their transactions, and the anomalies it proves, each with its
// proof: the read's isolation level, how far it read (the high watermark,
// and the last stable offset below which every transaction has ended),
// and for each finding the ids, offsets and transaction involved. The
// final read of such a topic carries two, one per isolation level, so the
// evidence shows what each reader would see.
type TxnCheck struct {
	Isolation      Isolation       `json:"isolation"` // read_committed or read_uncommitted
	HighWatermarks map[int32]int64 `json:"high_watermarks"`
	LastStable     map[int32]int64 `json:"last_stable"` // per partition; read_committed reads up to it
	Read           int             `json:"read"`        // records read, sentinels included

	Committed int `json:"committed"` // transactions by outcome, as the producers saw it
	Aborted   int `json:"aborted"`
	Unknown   int `json:"unknown"`
	// Records of transactions of each outcome that the read found.
	SeenCommitted int `json:"seen_committed"`
	SeenAborted   int `json:"seen_aborted"`
	SeenUnknown   int `json:"seen_unknown"`

	AbortedReads  []AbortedRead `json:"aborted_reads"`  // read_committed only
	Torn          []TornTxn     `json:"torn"`           // read_committed only
	LostCommitted []Loss        `json:"lost_committed"` // committed, below the read's bound, absent
	OutOfOrder    []OrderFlip   `json:"out_of_order"`   // per producer and partition
}

// TxnRef names a transaction in a finding.
type TxnRef struct {
	TransactionalID string     `json:"transactional_id"`
	N               int        `json:"n"`
	ProducerID      int64      `json:"producer_id"`
	Epoch           int16      `json:"epoch"`
	Outcome         TxnOutcome `json:"outcome"`
}

// AbortedRead proves that a read_committed reader saw a record of an
// aborted transaction: the record, where it was, and its transaction.
type AbortedRead struct {
	ID        string `json:"id"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	Txn       TxnRef `json:"txn"`
}

// TornTxn proves that a read_committed reader saw a committed transaction
// in part: the records it saw, and those it missed although it read past
// the offset each was acknowledged at.
type TornTxn struct {
	Txn     TxnRef   `json:"txn"`
	Seen    []string `json:"seen"`
	Missing []Loss   `json:"missing"` // High watermark: the bound the read reached in that partition
}

// OrderFlip proves that one producer's records sit in a partition in
// another order than it sent them: Before was sent first, yet sits at a
// higher offset than After.
type OrderFlip struct {
	TransactionalID string `json:"transactional_id"`
	Partition       int32  `json:"partition"`
	Before          string `json:"before"` // sent first
	BeforeOffset    int64  `json:"before_offset"`
	After           string `json:"after"` // sent later, found lower
	AfterOffset     int64  `json:"after_offset"`
}

// TxnRead is the input of CheckTransactions: one read of a topic.
type TxnRead struct {
	Isolation      Isolation
	Records        *Records
	HighWatermarks map[int32]int64
	LastStable     map[int32]int64 // nil: not known (the read's bound is then the high watermark)
}

// bound is the offset a read reached in partition p: a record below it
// was readable. A read_committed reader reads to the last stable offset.
func (rd TxnRead) bound(p int32) int64 {
	if rd.Isolation == ReadCommitted {
		if lso, ok := rd.LastStable[p]; ok {
			return lso
		}
	}
	return rd.HighWatermarks[p]
}

// CheckTransactions checks one read of a topic against the transactions
// its producers ran and the ledger (where each committed record was
// acknowledged). It is pure: the same history gives the same findings.
//
//   - aborted read (read_committed): a record of an aborted transaction
//     was returned;
//   - torn transaction (read_committed): a committed transaction was seen
//     in part, a missing record acknowledged below the read's bound;
//   - lost committed write: a record of a committed transaction is absent
//     although the read passed the offset it was acknowledged at;
//   - order: two records of one producer in one partition sit in the
//     reverse of the order it sent them.
//
// A transaction of unknown outcome is never a finding: the read says
// which way it went (SeenUnknown).
func CheckTransactions(txns []Transaction, ledger Topic, rd TxnRead) TxnCheck {
	c := TxnCheck{
		Isolation: rd.Isolation, HighWatermarks: copyHW(rd.HighWatermarks), LastStable: copyHW(rd.LastStable),
		Read: rd.Records.Len(), AbortedReads: []AbortedRead{}, Torn: []TornTxn{},
		LostCommitted: []Loss{}, OutOfOrder: []OrderFlip{},
	}
	seen := map[string]At{} // first place each id was found
	for i := 0; i < rd.Records.Len(); i++ {
		if id := rd.Records.ID(i); !IsSentinel(id) {
			if _, ok := seen[id]; !ok {
				seen[id] = At{rd.Records.Partition[i], rd.Records.Offset[i]}
			}
		}
	}
	acked := map[string]At{}
	for _, m := range ledger.All() {
		if m.Status == StatusOK && m.Offset >= 0 {
			acked[m.ID] = At{m.Partition, m.Offset}
		}
	}
	committed := rd.Isolation == ReadCommitted
	for _, t := range txns {
		ref := TxnRef{TransactionalID: t.TransactionalID, N: t.N, ProducerID: t.ProducerID, Epoch: t.Epoch, Outcome: t.Outcome}
		var in []string
		var missing []Loss
		for _, id := range t.IDs {
			at, found := seen[id]
			if found {
				in = append(in, id)
			}
			switch t.Outcome {
			case TxnAborted:
				if found && committed {
					c.AbortedReads = append(c.AbortedReads, AbortedRead{ID: id, Partition: at.Partition, Offset: at.Offset, Txn: ref})
				}
			case TxnCommitted:
				if a, ok := acked[id]; ok && !found && a.Offset < rd.bound(a.Partition) {
					missing = append(missing, Loss{ID: id, Partition: a.Partition, Offset: a.Offset, HighWatermark: rd.bound(a.Partition)})
				}
			}
		}
		switch t.Outcome {
		case TxnCommitted:
			c.Committed++
			c.SeenCommitted += len(in)
			c.LostCommitted = append(c.LostCommitted, missing...)
			if committed && len(in) > 0 && len(missing) > 0 {
				c.Torn = append(c.Torn, TornTxn{Txn: ref, Seen: in, Missing: missing})
			}
		case TxnAborted:
			c.Aborted++
			c.SeenAborted += len(in)
		default:
			c.Unknown++
			c.SeenUnknown += len(in)
		}
	}
	c.OutOfOrder = orderFlips(txns, seen)
	return c
}

// orderFlips finds, per producer and partition, the records of its
// committed transactions that a read found in another order than the
// producer sent them (transactions in order, records in order within each).
func orderFlips(txns []Transaction, seen map[string]At) []OrderFlip {
	type key struct {
		producer  string
		partition int32
	}
	type last struct {
		id  string
		off int64
	}
	byProducer := slices.Clone(txns)
	slices.SortStableFunc(byProducer, func(a, b Transaction) int {
		return cmp.Or(cmp.Compare(a.TransactionalID, b.TransactionalID), cmp.Compare(a.N, b.N))
	})
	highest := map[key]last{}
	flips := []OrderFlip{}
	for _, t := range byProducer {
		if t.Outcome != TxnCommitted {
			continue
		}
		for _, id := range t.IDs {
			at, ok := seen[id]
			if !ok {
				continue
			}
			k := key{t.TransactionalID, at.Partition}
			if h, ok := highest[k]; ok && at.Offset < h.off {
				flips = append(flips, OrderFlip{TransactionalID: t.TransactionalID, Partition: at.Partition,
					Before: h.id, BeforeOffset: h.off, After: id, AfterOffset: at.Offset})
				continue
			}
			highest[k] = last{id, at.Offset}
		}
	}
	return flips
}

// AbortedReadIDs lists the ids of the aborted reads.
func (c TxnCheck) AbortedReadIDs() []string {
	var ids []string
	for _, a := range c.AbortedReads {
		ids = append(ids, a.ID)
	}
	return sortedIDs(ids)
}
