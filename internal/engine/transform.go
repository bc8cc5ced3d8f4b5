package engine

// A transform group is a consumer group whose members consume, transform
// and produce (transform IN --to OUT): its member processes are launched,
// watched, crashed and stopped by the consumer group machinery (member.go,
// consume.go), with the transform spec in place of the store; what differs
// is the step that starts it and its tally, the exactly-once check.

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
	"github.com/kafkabook/kafkabook/internal/consumer"
	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// Commit modes of a transform group, as the evidence records them.
const (
	commitTransaction = "transaction" // with --eos: in the output's transaction
	commitAfterBatch  = "after-batch" // without: after the poll's derived records were acknowledged
)

var _ = handles(transform, runbook.OpTransform)

// transform: transform IN --to OUT --group G [--eos] ... &
func transform(ctx context.Context, w *workload, s runbook.Step, a runbook.Transform, log *stepLog) error {
	in, out := w.topic(a.In), w.topic(a.Out)
	mode := commitAfterBatch
	if a.EOS {
		mode = commitTransaction
	}
	dedup := consumer.DedupNone
	if a.Effect && a.Dedup != "" {
		dedup = a.Dedup
	}
	g := &group{
		label: a.Group, name: w.realName(a.Group), topic: in, transform: &transformGroup{Transform: a},
		spec:   runbook.Consume{Topic: a.In, Group: a.Group, Commit: mode, Batch: a.Batch, Work: a.Work, CrashAt: a.CrashAt, Dedup: dedup, Client: a.Client},
		inHand: map[recordKey]bool{},
	}
	store := ""
	if a.Effect {
		// The effect outside Kafka: the group's store, as a consume
		// group's, in the evidence directory.
		g.store = w.storePath(a.Group)
		store = filepath.Base(g.store)
	}
	settings := maps.Clone(a.Settings)
	settings["to"] = out.label
	w.mu.Lock()
	w.groups[g.label] = g
	w.groupOrder = append(w.groupOrder, g.label)
	w.mu.Unlock()
	w.ev.Emit(results.KindConsumer, w.num, results.Consumer{
		Group: g.name, Label: g.label, Topic: in.label, Commit: mode, Dedup: dedup, Store: store,
		Pos: s.Pos.String(), Settings: settings,
		Members: []results.Member{}, Events: []results.ConsumerEvent{}, Offsets: []results.OffsetSample{},
	})
	m, err := w.startMember(ctx, g, true)
	if err != nil {
		return err
	}
	how := "offsets committed after each poll's derived records (at least once)"
	if a.EOS {
		how = "offsets committed in each poll's transaction, transactional.id " + transformTxnID(g)
	}
	crash := ""
	if a.Effect {
		how += fmt.Sprintf("; each record's effect applied to the store %s (dedup %s) before the commit", store, dedup)
	}
	if a.CrashAt > 0 {
		crash = fmt.Sprintf("; crashes after writing the derived record of record %d", a.CrashAt)
	}
	log.line("transform member %d of group %s started (pid %d): %s → %s, batch %d, %s%s", m.n, g.label, m.pid, a.In, a.Out, a.Batch, how, crash)
	return nil
}

// transformGroup is a transform group's step, and the end of its input
// as a read_committed consumer sees it.
type transformGroup struct {
	runbook.Transform

	mu  sync.Mutex
	hw  map[int32]int64 // the input's high watermarks when end was found
	end map[int32]int64
}

// consumedEnd is the offset per partition a group has consumed everything
// below once its committed offsets reach it: the high watermark for a
// consume group. A transform group reads read_committed and commits the
// offset after the last record it was given, so its end is the offset
// after the last committed record of each partition: records of aborted
// transactions and transaction markers after it are never given to it.
// That end is read again only when the high watermarks move.
func (w *workload) consumedEnd(ctx context.Context, g *group) (map[int32]int64, error) {
	hw, err := w.admin.EndOffsets(ctx, g.topic.name)
	if err != nil || g.transform == nil {
		return hw, err
	}
	t := g.transform
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.end != nil && maps.Equal(hw, t.hw) {
		return t.end, nil
	}
	rd, err := kafka.ReadAll(ctx, w.reachable(ctx), g.topic.name, kafka.ReadOptions{
		Timeout: readTimeout, Settle: settleLimit, Isolation: results.ReadCommitted})
	if err != nil {
		return nil, err
	}
	if !maps.Equal(rd.HW, rd.LastStable) {
		return nil, fmt.Errorf("a transaction of %s is still open (last stable offset %s, high watermark %s)", g.topic.label, showOffsets(rd.LastStable), showOffsets(rd.HW))
	}
	end := map[int32]int64{}
	for p := range rd.HW {
		end[p] = 0
	}
	for i := range rd.Records.Len() {
		end[rd.Records.Partition[i]] = max(end[rd.Records.Partition[i]], rd.Records.Offset[i]+1)
	}
	t.hw, t.end = rd.HW, end
	return end, nil
}

// transformTxnID is the transactional.id of a transform group's members:
// one per group and run, so that a successor fences its predecessor.
func transformTxnID(g *group) string { return "kafkabook-transform-" + g.name }

// transformSpec is the member spec of a transform group's member, nil for
// a consume group.
func (w *workload) transformSpec(g *group) *consumer.TransformSpec {
	if g.transform == nil {
		return nil
	}
	return &consumer.TransformSpec{
		In: g.topic.name, Out: w.realName(g.transform.Out), EOS: g.transform.EOS,
		TxnID: transformTxnID(g), Batch: g.transform.Batch, Work: g.transform.Work, Effect: g.transform.Effect,
	}
}

// driverTransformSpec is the spec of member n of transform group g
// through a driver: the franz-go member's settings (transformSpec), the
// transaction timeout it runs with, and kafkabook's group timing.
func (w *workload) driverTransformSpec(ctx context.Context, g *group, ref driver.Ref, n, crashAt int) (driver.TransformSpec, error) {
	ts := w.transformSpec(g)
	props := memberProperties(nil)
	if err := driver.Refuse(ref.Client, clientconfig.Consumer, props); err != nil {
		return driver.TransformSpec{}, err
	}
	spec := driver.TransformSpec{
		Client: ref.Client, Bootstrap: w.reachable(ctx).Seeds, In: ts.In, Out: ts.Out, Group: g.name, Member: n,
		EOS: ts.EOS, Batch: ts.Batch, Work: ts.Work, CrashAt: crashAt,
		Effect: ts.Effect, Dedup: g.spec.Dedup, Store: g.store, Properties: props,
		Access: driver.SecurityProperties(ref.Client, w.access),
	}
	if ts.EOS {
		spec.TxnID, spec.TxnTimeout = ts.TxnID, kafka.TransactionTimeout
	}
	return spec, nil
}

// tallyTransform tallies a transform group: the exactly-once check of OUT
// against IN, both read read_committed once OUT's last stable offset has
// reached its high watermark (a transaction its crashed member left open
// and no successor fenced ends by the transaction timeout), and the
// members' reports.
func (w *workload) tallyTransform(ctx context.Context, g *group) error {
	seeds := w.reachable(ctx)
	outName := w.realName(g.transform.Out)
	hw, err := w.admin.EndOffsets(ctx, outName)
	if err != nil {
		return fmt.Errorf("end offsets of %s: %w", g.transform.Out, err)
	}
	past := map[int32]int64{}
	for p, o := range hw {
		past[p] = o - 1
	}
	if _, err := kafka.WaitStable(ctx, seeds, outName, past, stableWait, nil); err != nil {
		return fmt.Errorf("the exactly-once check of group %s: %w", g.label, err)
	}
	opts := kafka.ReadOptions{Timeout: readTimeout, Settle: settleLimit, Quiet: settleQuiet, Isolation: results.ReadCommitted}
	inRead, err := kafka.ReadAll(ctx, seeds, g.topic.name, opts)
	if err != nil {
		return fmt.Errorf("reading %s for the exactly-once check of group %s: %w", g.topic.label, g.label, err)
	}
	out, err := kafka.ReadAll(ctx, seeds, outName, opts)
	if err != nil {
		return fmt.Errorf("reading %s for the exactly-once check of group %s: %w", g.transform.Out, g.label, err)
	}
	committed, err := w.admin.Committed(ctx, g.name, g.topic.name)
	if err != nil {
		return err
	}
	in := results.GroupInput{Group: g.name, At: time.Now().UTC(), Committed: committed, End: g.end, EOS: g.transform.EOS,
		In:  &results.EOSRead{Name: g.topic.name, Records: inRead.Records, HW: inRead.HW, Stable: inRead.LastStable},
		Out: &results.EOSRead{Name: outName, Records: out.Records, HW: out.HW, Stable: out.LastStable}}
	if g.store != "" {
		// With --effect the effects are the store's: what it counts per
		// event is what applied_twice judges, not the output's copies.
		contents, err := w.readStore(ctx, g)
		if err != nil {
			return err
		}
		in.Store, in.Applied, in.Likes, in.Handled = true, contents.Applied, contents.Likes, len(contents.Handled)
	}
	evs := w.groupEvents(g)
	in.Events = len(evs)
	t := w.groupTally(g, in, evs)
	check := *t.EOS
	for _, l := range eosLines(g.label, g.transform.Out, check) {
		w.con.printf("  %s\n", l)
	}
	if g.store != "" {
		var twice []string
		for _, a := range t.AppliedTwice {
			twice = append(twice, fmt.Sprintf("%s ×%d", a.Event, a.Times))
		}
		line := fmt.Sprintf("    its store (%s, dedup %s): %d effects applied, %d skipped as handled, applied twice %d", filepath.Base(g.store), g.spec.Dedup, t.StoreTotal, len(t.Skipped), len(twice))
		if len(twice) > 0 {
			line += ": " + strings.Join(twice, " ") + " (an effect outside Kafka: the aborted transaction did not take it back)"
		}
		w.con.printf("%s\n", line)
	}
	var aborted []string
	for _, e := range evs {
		if e.Kind == results.EventAbort {
			aborted = append(aborted, e.ID)
		}
	}
	if len(aborted) > 0 {
		w.con.printf("    the members' sessions aborted transactions holding the derived records of %s: given again\n", strings.Join(aborted, " "))
	}
	return nil
}

// eosLines is what the console says of an exactly-once check.
func eosLines(label, out string, c results.EOSCheck) []string {
	mode := "at least once"
	if c.EOS {
		mode = "exactly once"
	}
	lines := []string{fmt.Sprintf("transform group %s (%s): %d input records, %d committed records in %s: once %d, duplicated %d, missing %d, strays %d",
		label, mode, c.Inputs, c.Outputs, out, c.Once, len(c.Duplicates), len(c.Missing), len(c.Strays))}
	if len(c.Duplicates) > 0 {
		lines = append(lines, "  duplicated: "+strings.Join(c.DuplicateIDs(), " "))
		for _, d := range c.Duplicates[:min(len(c.Duplicates), 3)] {
			var at []string
			for _, o := range d.Out {
				at = append(at, fmt.Sprintf("p%d@%d", o.Partition, o.Offset))
			}
			lines = append(lines, fmt.Sprintf("    %s (input partition %d offset %d) is in %s at %s", d.ID, d.Partition, d.Offset, out, strings.Join(at, ", ")))
		}
	}
	if len(c.Missing) > 0 {
		lines = append(lines, "  missing: "+strings.Join(c.MissingIDs(), " "))
		m := c.Missing[0]
		lines = append(lines, fmt.Sprintf("    e.g. %s (input partition %d offset %d): no committed record of %s below its last stable offset %s names it", m.ID, m.Partition, m.Offset, out, showOffsets(c.OutStable)))
	}
	return lines
}
