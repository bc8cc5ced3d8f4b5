package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ReadOptions bound a ReadAll.
type ReadOptions struct {
	Timeout  time.Duration // for the whole read, settling included
	Settle   time.Duration // give up waiting for the high watermarks to settle after this long
	Quiet    time.Duration // the high watermarks must stand still this long to count as settled
	Progress poll.Progress // told what the read waits for; may be nil
	// Isolation is results.ReadCommitted to read as a read_committed
	// consumer does: to the last stable offset, without the records of
	// aborted transactions; anything else reads uncommitted.
	Isolation results.Isolation
}

// Read is what ReadAll found.
type Read struct {
	Records *results.Records
	HW      map[int32]int64 // high watermark read to, per partition
	// LastStable is the last stable offset of each partition, taken after
	// the high watermarks settled: below it every transaction has ended,
	// and a read_committed read reads to it.
	LastStable map[int32]int64
	Settled    bool // the high watermarks stood still for Quiet before the read
}

// ReadAll reads every partition of topic from the beginning to its high
// watermark, through the brokers at seeds: a fresh client, no consumer
// group, the independent view of a topic.
//
// A high watermark that is still moving (followers catching up with an
// acks=1 leader, a new leader advancing it) would make a read miss records
// that are there; so ReadAll first waits, up to Settle, until the high
// watermarks stand still for Quiet, and says whether they did. Records at
// or above the high watermark it read to are never claimed absent: the
// classification calls them unseen.
func ReadAll(ctx context.Context, b Brokers, topic string, o ReadOptions) (Read, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	admCl, err := kgo.NewClient(observerOpts(b)...)
	if err != nil {
		return Read{}, err
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)

	hw, serr := settledHW(ctx, adm, topic, o)
	read := Read{HW: hw, Settled: serr == nil, Records: &results.Records{}}
	if hw == nil {
		return read, serr
	}
	if serr != nil && ctx.Err() != nil {
		return read, serr
	}

	if read.LastStable, err = lastStable(ctx, adm, topic); err != nil {
		return read, err
	}
	to := hw // the offset to read up to, per partition
	isolation := kgo.ReadUncommitted()
	if o.Isolation == results.ReadCommitted {
		to, isolation = read.LastStable, kgo.ReadCommitted()
	}
	// Records below a partition's log start offset are gone for good
	// (retention, a deletion of records): the read starts there, and what
	// was acknowledged below it is counted lost, not waited for.
	from, err := listOffsets(ctx, "log start offset", topic, adm.ListStartOffsets)
	if err != nil {
		return read, err
	}
	return read, readTo(ctx, b, topic, from, to, isolation, o.Isolation.Level(), read.Records)
}

// settledHW waits, up to o.Settle, until the high watermarks of topic
// stand still for o.Quiet, telling o.Progress what it waits for, since a
// read to a moving high watermark misses records that are there. It
// returns the last high watermarks it saw (nil if it saw none) and
// poll.Until's error, nil when they settled.
func settledHW(ctx context.Context, adm *kadm.Client, topic string, o ReadOptions) (map[int32]int64, error) {
	var hw map[int32]int64
	var still time.Time
	err := poll.Until(ctx, 100*time.Millisecond, o.Settle, o.Progress, func(ctx context.Context) (bool, string, error) {
		now, err := endOffsets(ctx, adm, topic)
		if err != nil {
			return false, "", err
		}
		if hw == nil || !maps.Equal(now, hw) {
			hw, still = now, time.Now()
		}
		return time.Since(still) >= o.Quiet, fmt.Sprintf("waiting for the high watermark of %s to stand still for %s (now %s)", topic, o.Quiet, showHW(hw)), nil
	})
	return hw, err
}

// readTo reads every partition of topic from its log start offset in
// from up to its offset in to (exclusive), with a fresh client and no consumer group, adding the
// records to recs; named is the isolation's name, for the error when ctx
// ends first. Control records are read too, for their offsets: without
// them a read could wait for an offset that holds no record.
func readTo(ctx context.Context, b Brokers, topic string, from, to map[int32]int64, isolation kgo.IsolationLevel, named results.Isolation, recs *results.Records) error {
	assign := map[int32]kgo.Offset{}
	for p, end := range to {
		if end > from[p] {
			assign[p] = kgo.NewOffset().AtStart()
		}
	}
	if len(assign) == 0 {
		return nil
	}
	cl, err := kgo.NewClient(append(observerOpts(b),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: assign}),
		kgo.FetchMaxWait(200*time.Millisecond),
		kgo.FetchIsolationLevel(isolation),
		kgo.KeepControlRecords())...)
	if err != nil {
		return err
	}
	defer cl.Close()
	next := map[int32]int64{}      // next offset to read, per partition
	fetchErr := map[int32]string{} // the last error a fetch of the partition returned
	done := func() bool {
		for p := range assign {
			if next[p] < to[p] {
				return false
			}
		}
		return true
	}
	for !done() {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return fmt.Errorf("reading %s to %v (%s): %w (got to %v%s)", topic, to, named, ctx.Err(), next, fetchErrors(fetchErr))
		}
		// Errors (a leader moving) are retried by the client; the last
		// one of each partition says why a read stopped short (a batch
		// that fails its CRC check is never returned).
		fs.EachError(func(_ string, p int32, err error) {
			if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				fetchErr[p] = err.Error()
			}
		})
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset >= to[r.Partition] {
				return
			}
			next[r.Partition] = max(next[r.Partition], r.Offset+1)
			if !r.Attrs.IsControl() {
				recs.Add(IDOf(r.Value), r.Partition, r.Offset)
			}
		})
	}
	return nil
}

// fetchErrors says the last fetch error of each partition that had one.
func fetchErrors(errs map[int32]string) string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(errs)) {
		out = append(out, fmt.Sprintf("; partition %d's last fetch error: %s", p, errs[p]))
	}
	return strings.Join(out, "")
}

// endOffsets lists the high watermarks, retrying until ctx ends: while a
// new leader settles, brokers answer OFFSET_NOT_AVAILABLE or
// NOT_LEADER_OR_FOLLOWER, and metadata may still name a leader that was just
// killed (connection refused).
func endOffsets(ctx context.Context, adm *kadm.Client, topic string) (map[int32]int64, error) {
	return listOffsets(ctx, "high watermark", topic, adm.ListEndOffsets)
}

// listOffsets asks list for the offsets of topic's partitions until it
// answers without error or ctx ends; what names them in the error.
func listOffsets(ctx context.Context, what, topic string, list func(context.Context, ...string) (kadm.ListedOffsets, error)) (map[int32]int64, error) {
	var out map[int32]int64
	var last error
	err := poll.Until(ctx, 100*time.Millisecond, time.Hour, nil, func(ctx context.Context) (bool, string, error) {
		ends, err := list(ctx, topic)
		if err == nil {
			err = ends.Error()
		}
		if err != nil {
			last = err
			return false, err.Error(), nil
		}
		out = map[int32]int64{}
		ends.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
		return true, "", nil
	})
	if err != nil && last != nil {
		return nil, fmt.Errorf("%s of %s: %w (last error: %v)", what, topic, err, last)
	}
	return out, err
}

// lastStable lists the last stable offsets (what ListOffsets answers a
// read_committed reader), retrying like endOffsets.
func lastStable(ctx context.Context, adm *kadm.Client, topic string) (map[int32]int64, error) {
	return listOffsets(ctx, "last stable offset", topic, adm.ListCommittedOffsets)
}

// AppendSentinels writes records with value value to every partition of
// topic with acks=all, until each partition's log has moved past the
// offset past names for it (one record at least), and returns the offset
// of each partition's last sentinel. Once they are acknowledged, every
// record acknowledged at or below past sits below the high watermark, so a
// read that finds no trace of one proves it gone.
func AppendSentinels(ctx context.Context, b Brokers, topic string, past map[int32]int64, value string) (map[int32]int64, error) {
	cl, err := kgo.NewClient(append(observerOpts(b),
		kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.DisableIdempotentWrite(),
		kgo.ProducerLinger(0),
		kgo.RecordDeliveryTimeout(60*time.Second),
	)...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	last := map[int32]int64{}
	need := map[int32]int64{}
	for p := range past {
		need[p] = 1
	}
	for len(need) > 0 {
		var recs []*kgo.Record
		for p, n := range need {
			for range n {
				recs = append(recs, &kgo.Record{Partition: p, Value: []byte(value)})
			}
		}
		for _, r := range cl.ProduceSync(ctx, recs...) {
			if r.Err != nil {
				return nil, fmt.Errorf("sentinel to %s partition %d: %w", topic, r.Record.Partition, r.Err)
			}
			last[r.Record.Partition] = max(last[r.Record.Partition], r.Record.Offset)
		}
		clear(need)
		for p, off := range last {
			if off < past[p] { // the high watermark will be off+1
				need[p] = past[p] - off
			}
		}
	}
	return last, nil
}

// showHW formats high watermarks by partition: "0:10 1:7".
func showHW(hw map[int32]int64) string {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(hw)) {
		parts = append(parts, fmt.Sprintf("%d:%d", p, hw[p]))
	}
	return strings.Join(parts, " ")
}
