package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

var _ = handles(read, runbook.OpRead)

// read: read TOPIC [--isolation LEVEL] [--via NODE] — a snapshot: what
// is visible now, to a reader of that isolation level.
//
//	high watermark=10, read 10 messages (m-001 .. m-010)
//	acked 20: present 10, unseen 10 (m-011 ... m-020: acknowledged at or above the high watermark; the final read decides)
//
// On a topic written by a transactional producer it also checks the read
// against the transactions (aborted reads, torn transactions, ...).
func read(ctx context.Context, o *observation, s runbook.Step, rd runbook.Read, log *stepLog) error {
	label := rd.Topic
	seeds, via, err := o.seeds(ctx, rd.Via)
	if err != nil {
		return err
	}
	tally, err := o.readTopic(ctx, label, seeds, log, false, rd.Isolation, s.Pos.String(), via)
	if err != nil {
		return err
	}
	o.mu.Lock()
	o.snapshots[label] = append(o.snapshots[label], snapshot{s.Pos, tally})
	o.mu.Unlock()
	o.ev.Emit(results.KindTally, o.num, tally)
	for _, l := range tallyLines(tally) {
		log.line("%s", l)
	}
	for _, l := range txnLines(tally.Transactions) {
		log.line("%s", l)
	}
	return nil
}

// snapshot is the tally of a `read` step.
type snapshot struct {
	pos runbook.Pos
	t   results.Tally
}

// readTopic reads a topic of the run to its settled high watermark (to
// its last stable offset, read_committed) and classifies every message of
// its ledger against what it found and what earlier reads of the run
// found; on a topic with transactions it checks the read against them.
// What it found goes into the evidence first, record by record (a read
// event), and the tally is derived from that event as a re-check of the
// stored evidence derives it (results.ReadEvent.Tally).
func (o *observation) readTopic(ctx context.Context, label string, seeds kafka.Brokers, log *stepLog, final bool, isolation results.Isolation, pos, via string) (results.Tally, error) {
	ev, ledger, txns, err := o.readEvent(ctx, label, seeds, log, isolation)
	if err != nil {
		return results.Tally{}, err
	}
	ev.Final, ev.Pos, ev.Via = final, pos, via
	o.ev.Emit(results.KindRead, o.num, ev)
	o.mu.Lock()
	seen := o.seen[label]
	if seen == nil {
		seen = &results.Seen{}
		o.seen[label] = seen
	}
	o.mu.Unlock()
	tally := ev.Tally(ledger, txns, seen)
	o.mu.Lock()
	seen.Remember(ev.Records)
	o.mu.Unlock()
	return tally, nil
}

// readEvent reads a topic and says what the read found with the ledger
// and transactions it is to be judged against (as they stand now).
func (o *observation) readEvent(ctx context.Context, label string, seeds kafka.Brokers, log *stepLog, isolation results.Isolation) (results.ReadEvent, results.Topic, []results.Transaction, error) {
	rd, err := kafka.ReadAll(ctx, seeds, o.realName(label), kafka.ReadOptions{
		Timeout: readTimeout, Settle: settleLimit, Quiet: settleQuiet, Progress: log.progress, Isolation: isolation,
	})
	if err != nil {
		return results.ReadEvent{}, results.Topic{}, nil, err
	}
	ledger := o.history.ledger(label)
	txns := o.history.transactions(label)
	ev := results.ReadEvent{Topic: o.realName(label), Label: label, At: time.Now().UTC(), Settled: rd.Settled,
		HighWatermarks: rd.HW, LastStable: rd.LastStable, LedgerLen: ledger.Len(), Txns: len(txns), Records: rd.Records}
	if isolation == results.ReadCommitted {
		ev.Isolation = isolation
	}
	return ev, ledger, txns, nil
}

// tallyLines is what a read prints.
func tallyLines(t results.Tally) []string {
	var hws []string
	for p := int32(0); int(p) < len(t.HighWatermarks); p++ {
		hws = append(hws, fmt.Sprint(t.HighWatermarks[p]))
	}
	line := fmt.Sprintf("high watermark=%s, read %d records", strings.Join(hws, ","), t.Read)
	if !t.Settled {
		line += fmt.Sprintf(" (still moving after %s: read anyway)", settleLimit)
	}
	out := []string{line}
	line = fmt.Sprintf("acked %d: present %d, lost %d%s", t.Acked, t.Present, len(t.Lost), idList(t.LostIDs()))
	if len(t.Unseen) > 0 {
		line += fmt.Sprintf(", unseen %d%s", len(t.Unseen), idList(t.Unseen))
	}
	out = append(out, line)
	if len(t.Unseen) > 0 && !t.Final {
		out = append(out, "unseen: acknowledged at or above the high watermark read; not visible yet, not lost (the final read decides)")
	}
	for _, l := range t.Lost[:min(len(t.Lost), 1)] {
		found := "nothing"
		if l.Found != "" {
			found = l.Found
		}
		out = append(out, fmt.Sprintf("lost, e.g. %s: acknowledged at offset %d of partition %d; the log reached %d and holds %s there", l.ID, l.Offset, l.Partition, l.HighWatermark, found))
	}
	if len(t.Duplicates) > 0 {
		out = append(out, fmt.Sprintf("duplicates %d%s", len(t.Duplicates), idList(t.DuplicateIDs())))
	}
	if t.Failed+t.Unknown > 0 {
		out = append(out, fmt.Sprintf("failed %d (present anyway %d), unknown %d (present %d%s)", t.Failed, len(t.FailedPresent), t.Unknown, len(t.UnknownPresent), idList(t.UnknownPresent)))
	}
	if len(t.Inconsistent) > 0 {
		i := t.Inconsistent[0]
		out = append(out, fmt.Sprintf("inconsistent offsets %d: e.g. partition %d offset %d held %s, then %s", len(t.Inconsistent), i.Partition, i.Offset, i.IDs[0], i.IDs[1]))
	}
	if t.Foreign > 0 {
		out = append(out, fmt.Sprintf("%d records that this run did not produce", t.Foreign))
	}
	return out
}

// idList shows ids compactly: " (m-011 m-012 ... m-020)".
func idList(ids []string) string {
	switch {
	case len(ids) == 0:
		return ""
	case len(ids) <= 4:
		return " (" + strings.Join(ids, " ") + ")"
	}
	return fmt.Sprintf(" (%s %s ... %s)", ids[0], ids[1], ids[len(ids)-1])
}

var _ = handles(logs, runbook.OpLogs)

// logs: logs NODE [--grep REGEX] — the node's broker log lines since the
// run began.
func logs(ctx context.Context, o *observation, s runbook.Step, l runbook.Logs, log *stepLog) error {
	nodes, err := o.nodes(ctx, l.Node)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		lines, err := o.nodeLines(ctx, n, o.start, l.Grep)
		if errors.Is(err, cluster.ErrNoLogs) {
			log.line("%s: %v", n, err)
			continue
		}
		if err != nil {
			return err
		}
		for _, l := range lines {
			log.line("%s: %s", n, l.Text)
		}
		if len(lines) == 0 {
			log.line("%s: no matching lines since the run began", n)
		}
	}
	return nil
}
