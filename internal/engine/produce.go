package engine

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// listLimit is the largest produce step whose messages are listed one by
// one without --verbose: a step of a few messages reads best as its list
// (the acks article's steps), a step of thousands as its summary.
const listLimit = 20

// progressEvery is how often a running produce step shows its progress
// line (transient: printed, never recorded).
const progressEvery = time.Second

var _ = handles(produce, runbook.OpProduce)

// produce: produce TOPIC --acks 0|1|all [--from N] [--count N] [--rate N/s]
// [--for DUR] [--size BYTES] [--keys N] [--key KEY] [--event-id ID]
// [--idempotent] [--retries N|max] [--max-in-flight N]
// [--delivery-timeout DUR] [--transactional [--txn-size N] [--abort-every K]]
// [--via NODE] [--client CLIENT[@V]] [-X NAME=VALUE]...
//
// Every client runs as a driver process where the cluster's clients run,
// one process per step: franz-go (the default) as this binary's
// franz-go-driver (driver.FranzGo), java and librdkafka as their drivers
// (internal/driver). The client's exact version and configuration in
// force go in the evidence, and in each ledger entry the acks and
// idempotence in force, the client's defaults included.
//
// With --transactional the records go out in transactions; each record's
// ledger entry follows its transaction's outcome (ok when it committed,
// failed when it was aborted, unknown when its end got no answer), and each
// transaction is recorded with its records, producer id and epoch.
//
// While it runs it shows a progress line every second; at the end it
// records a summary:
//
//	acked 29998 of 30000, failed 0, unknown 2 in 30.0s: 1000 msg/s; latency p50 2ms, p99 15ms, max 4.21s
//
// A step of at most listLimit messages, or any step with Options.Verbose,
// also lists each result as it arrives: "  0.1s m-011 ok offset=10".
func produce(ctx context.Context, w *workload, s runbook.Step, p runbook.Produce, log *stepLog) error {
	t := w.topic(p.Topic)
	seeds, _, err := w.seeds(ctx, p.Via)
	if err != nil {
		return err
	}
	spec := produceSpec(t.name, p)
	ref, viaDriver, err := w.clientRef(p)
	if err != nil {
		return err
	}
	var dp *driver.Producer
	id := transactionalID(t, s)
	if viaDriver {
		ds := driverSpec(spec, seeds.Seeds)
		if err = driver.Refuse(ref.Client, clientconfig.Producer, ds.Properties); err != nil {
			return err
		}
		ds.Access = driver.SecurityProperties(ref.Client, w.access)
		if p.Transactional {
			ds.TransactionalID, ds.TxnSize, ds.AbortEvery = id, p.TxnSize, p.AbortEvery
		}
		if dp, err = w.startDriver(ctx, ref, ds, log); err != nil {
			return err
		}
	} else {
		// check refuses what franz-go cannot run; a caller that built
		// the step otherwise is refused here, before a process starts.
		if _, errs := clientconfig.ParseFranzGoProducer(p.Properties, p.Transactional); len(errs) > 0 {
			return errs[0]
		}
		// franz-go runs as its driver process too, where the cluster's
		// clients run (this machine, or a pod): a pause, a crash or a
		// network fault meets it as it meets any other client.
		if dp, err = w.startFranzGo(ctx, seeds, spec, p, id, log); err != nil {
			return err
		}
	}
	defer dp.Close()
	// The ledger says what each send was made with: the client's
	// settings in force as it reported them, its defaults and
	// kafkabook's adjustments included, read once for the step.
	acks, idempotent, err := dp.Startup().InForce()
	if err != nil {
		return err
	}
	t.driving(dp)
	defer t.driving(nil)
	list := w.opts.Verbose || spec.Count <= listLimit
	sum := &produceSummary{count: spec.Count, rate: spec.Rate, start: time.Now()}
	stopProgress := poll.Every(progressEvery, func() { log.progress("%s", sum.progress(t.label)) })
	w.reserve(t, spec.Count)
	onResult := func(res kafka.Result) {
		epoch := int32(-1)
		if res.Status == results.StatusOK {
			epoch = w.epoch(t.name, res.Partition)
		}
		t.add(res, acks, idempotent, epoch)
		sum.add(res)
		if list {
			log.line("%s", resultLine(res))
		}
	}
	txns := txnSummary{producerID: -1, epoch: -1}
	onTxn := func(x kafka.TxnResult) {
		t.addTxn(transactionOf(t, id, x))
		txns.add(x) // transactions end one after another: no lock needed
		if list {
			log.line("%s", txnLine(x))
		}
	}
	dp.OnTxn = onTxn
	stats, err := dp.Run(ctx, onResult)
	stopProgress()
	w.flush()
	if err != nil {
		return err
	}
	sum.start = stats.Start
	log.line("%s", sum.line())
	if p.Transactional {
		log.line("%s", txns.line(id))
	}
	produceNotes(log, stats, spec.Count, p.Rate)
	return nil
}

// produceNotes are the lines that say a producer did not do all it was
// asked: it stopped, the run ended first, or it could not keep its rate.
func produceNotes(log *stepLog, stats kafka.ProduceStats, count int, rate float64) {
	switch {
	case stats.Stopped != "":
		log.line("the producer stopped after sending %d of %d: %s", stats.Sent, count, stats.Stopped)
	case stats.Sent < count:
		log.line("stopped after sending %d of %d: the run ended first", stats.Sent, count)
	}
	if stats.Behind {
		log.line("could not keep up with %s/s: a message went out %s after its scheduled time (latency counts from the schedule)",
			strconv.FormatFloat(rate, 'f', -1, 64), stats.MaxLag.Round(time.Millisecond))
	}
}

// produceSummary counts a produce step's results as they arrive.
type produceSummary struct {
	mu                  sync.Mutex
	count               int
	rate                float64
	start, last         time.Time
	ok, failed, unknown int
	lat                 results.LatencyRecorder
}

func (p *produceSummary) add(m kafka.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch m.Status {
	case results.StatusOK:
		p.ok++
		if !m.Done.IsZero() {
			p.lat.Add(m.Done.Sub(m.Intended))
		}
	case results.StatusFailed:
		p.failed++
	default:
		p.unknown++
	}
	if m.Done.After(p.last) {
		p.last = m.Done
	}
}

// progress is the transient line: how far the step has got.
func (p *produceSummary) progress(label string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := time.Since(p.start)
	line := fmt.Sprintf("%s: acked %d, failed %d, unknown %d of %d", label, p.ok, p.failed, p.unknown, p.count)
	if p.rate > 0 {
		due := min(p.count, int(el.Seconds()*p.rate)+1)
		line += fmt.Sprintf(", %d due by the schedule", due)
	}
	return line + fmt.Sprintf(" (%.0fs)", el.Seconds())
}

// line is the summary the step records.
func (p *produceSummary) line() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "acked %d of %d", p.ok, p.count)
	if p.failed+p.unknown > 0 || p.count > listLimit {
		fmt.Fprintf(&b, ", failed %d, unknown %d", p.failed, p.unknown)
	}
	if p.count > listLimit && p.last.After(p.start) {
		el := p.last.Sub(p.start)
		fmt.Fprintf(&b, " in %s: %.0f msg/s", showDuration(el), float64(p.ok)/el.Seconds())
	}
	if l := p.lat.Percentiles(); l.Count > 0 && p.count > listLimit {
		fmt.Fprintf(&b, "; latency p50 %s, p99 %s, max %s", showDuration(l.P50), showDuration(l.P99), showDuration(l.Max))
	}
	return b.String()
}

// showDuration rounds a duration for a summary: 1.23s, 15ms, 850µs.
func showDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= 10*time.Millisecond:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// produceSpec is what a produce step asks of its producer, writing to
// the topic's name in the cluster: the messages, and the properties as
// the runbook gives them; what it does not give is the client's default.
func produceSpec(topic string, p runbook.Produce) kafka.ProduceSpec {
	return kafka.ProduceSpec{Topic: topic, From: p.From, Count: p.Count, Properties: maps.Clone(p.Properties),
		Rate: p.Rate, Size: p.Size, Keys: p.Keys, Key: p.Key, EventID: p.EventID}
}

// resultLine is one produce result as the console shows it.
func resultLine(m kafka.Result) string {
	lat := "   -"
	if m.Status == results.StatusOK && !m.Done.IsZero() {
		lat = fmt.Sprintf("%5.1fs", max(m.Done.Sub(m.Intended), 0).Seconds())
	}
	id := results.MessageID(int64(m.Num))
	switch m.Status {
	case results.StatusOK:
		return fmt.Sprintf("%s %s ok offset=%d", lat, id, m.Offset)
	case results.StatusUnknown:
		if m.Err == "" {
			m.Err = "no answer before the run ended"
		}
		return fmt.Sprintf("%s %s unknown (may be in the log): %s", lat, id, m.Err)
	}
	return fmt.Sprintf("%s %s %s %s", lat, id, m.Status, m.Err)
}
