package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// final is the run's last word on every message. On the cluster the
// nemesis healed (every node started, resumed and rejoined, every ISR
// full), it appends sentinel records to every partition of every topic
// the run produced to until its log has moved past every offset
// acknowledged before, then reads each topic to its high watermark and
// classifies every message. A message acknowledged and not found there is
// lost, with the proof in the tally; `read` steps before it were
// snapshots.
func (o *observation) final(ctx context.Context) (err error) {
	o.con.printf("--- final read on the healed cluster ---\n")
	// Recorded like a step, without a position: the notebook shows it
	// after the runbook's last block.
	log := newStepLog(o.con, runbook.Step{Text: "final read on the healed cluster"}, -1)
	defer func() { o.ev.Emit(results.KindStep, o.num, log.done(err)) }()
	sentinel := results.SentinelPrefix + strings.TrimPrefix(o.suffix, "-")
	for _, label := range o.history.producedTo() {
		name := o.realName(label)
		parts, err := o.partitions(ctx, name)
		if err != nil {
			return fmt.Errorf("partitions of %s: %w", label, err)
		}
		// The log of each partition must move past the highest offset
		// anything was acknowledged at.
		past := map[int32]int64{}
		for _, p := range parts {
			past[p.ID] = -1
		}
		for p, off := range o.history.ledger(label).HighestAcked() {
			past[p] = max(past[p], off)
		}
		seeds := o.reachable(ctx)
		at, err := kafka.AppendSentinels(ctx, seeds, name, past, sentinel)
		if err != nil {
			return err
		}
		tally, err := o.finalTally(ctx, label, seeds, at, log)
		if err != nil {
			return err
		}
		for p, off := range at {
			if tally.HighWatermarks[p] <= off {
				return fmt.Errorf("final read of %s: partition %d's high watermark %d is not past its sentinel at offset %d", label, p, tally.HighWatermarks[p], off)
			}
		}
		o.mu.Lock()
		o.finals[label] = tally
		snaps := slices.Clone(o.snapshots[label])
		o.mu.Unlock()
		o.ev.Emit(results.KindTally, o.num, tally)
		log.line("%s:", label)
		for _, l := range tallyLines(tally) {
			log.line("  %s", l)
		}
		for _, l := range txnLines(tally.Transactions) {
			log.line("  %s", l)
		}
		for _, s := range snaps {
			log.line("  (the read at line %d saw present %d, unseen %d, lost %d)",
				s.pos.Line, s.t.Present, len(s.t.Unseen), len(s.t.Lost))
		}
	}
	return nil
}

// finalTally reads a topic for the final verdict. A topic written by a
// transactional producer is read both ways: the tally is read_committed's
// (only committed records count as acknowledged, and a consumer of
// committed data sees no others), once the last stable offset has passed
// the sentinels at; the read_uncommitted view adds its transaction check,
// so the evidence shows what each reader would see.
func (o *observation) finalTally(ctx context.Context, label string, seeds kafka.Brokers, at map[int32]int64, log *stepLog) (results.Tally, error) {
	if len(o.history.transactions(label)) == 0 {
		t, err := o.readTopic(ctx, label, seeds, log, true, results.ReadUncommitted, "", "")
		if err != nil {
			return t, fmt.Errorf("final read of %s: %w", label, err)
		}
		return t, nil
	}
	if _, err := kafka.WaitStable(ctx, seeds, o.realName(label), at, stableWait, log.progress); err != nil {
		return results.Tally{}, fmt.Errorf("final read of %s: %w", label, err)
	}
	t, err := o.readTopic(ctx, label, seeds, log, true, results.ReadCommitted, "", "")
	if err != nil {
		return t, fmt.Errorf("final read_committed read of %s: %w", label, err)
	}
	view, err := o.finalTxnView(ctx, label, seeds, log)
	if err != nil {
		return t, err
	}
	t.Transactions = append(t.Transactions, view)
	return t, nil
}

// finalTxnView reads a transactional topic the other way than the final
// tally did (read_uncommitted), so the evidence shows what each reader
// sees, and checks it; the read is stored as the final read's view.
func (o *observation) finalTxnView(ctx context.Context, label string, seeds kafka.Brokers, log *stepLog) (results.TxnCheck, error) {
	ev, ledger, txns, err := o.readEvent(ctx, label, seeds, log, results.ReadUncommitted)
	if err != nil {
		return results.TxnCheck{}, fmt.Errorf("final read_uncommitted read of %s: %w", label, err)
	}
	ev.Final, ev.View = true, true
	o.ev.Emit(results.KindRead, o.num, ev)
	return ev.TxnCheck(ledger, txns), nil
}
