package engine

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// runner executes one run: one pass through the runbook. It sequences
// the steps and hands each to the part that performs it (steps.go, part):
// the workload (clients under test), the nemesis (faults and repairs), the
// observation (samplers, logs, reads) or the checker (expectations). It
// owns nothing else but the steps still running in the background.
type runner struct {
	*env
	out   io.Writer
	work  *workload
	nem   *nemesis
	obs   *observation
	check checker
	bg    backgrounds
}

func (r *runner) run(ctx context.Context, clients *drivers) (err error) {
	r.con = &console{w: r.out, red: newRedactor(r.opts.Backend)}
	r.con.printf("\n=== run %d of %d ===\n", r.num, r.opts.Doc.Meta.Repeat)
	if r.status, err = r.opts.Backend.Status(ctx); err != nil {
		return err
	}
	if r.access, err = cluster.AccessOf(ctx, r.opts.Backend); err != nil {
		return err
	}
	r.launcher = launch.Host
	if ls, ok := r.opts.Backend.(launch.Launchers); ok {
		if r.launcher, err = ls.Launcher(ctx); err != nil {
			return err
		}
	}
	clients.setLauncher(r.launcher)
	// The SASL password reads [hidden] in whatever is captured from outside.
	r.con.red = newRedactor(r.opts.Backend, r.access.Secrets()...)
	if r.admin, err = kafka.Dial(r.brokers(r.status.Bootstrap()...)); err != nil {
		return err
	}
	defer r.admin.Close()
	r.nem = &nemesis{env: r.env, downBy: map[string]runbook.Step{}, reassigning: map[string]reassigning{}}
	r.obs = newObservation(r.env, nil)
	r.work = newWorkload(r.env, clients, r.obs.epoch)
	r.obs.history = r.work
	if err := r.nem.resetIfChanged(ctx); err != nil {
		return fmt.Errorf("making the cluster new before the run: %w", err)
	}
	// A reset takes away the brokers the last run added: the run's nodes
	// are those the cluster has now.
	if r.status, err = r.opts.Backend.Status(ctx); err != nil {
		return err
	}
	if err := r.nem.heal(ctx); err != nil {
		return fmt.Errorf("healing the cluster before the run: %w", err)
	}
	if err := r.deleteEarlierTopics(ctx); err != nil {
		return err
	}
	if r.num == 1 {
		r.obs.recordFeatures(ctx)
	}
	if err := r.work.installDrivers(ctx); err != nil {
		return err
	}
	r.start = time.Now().UTC()
	r.ev.Emit(results.KindRunStart, r.num, results.RunStartEvent{Start: r.start})
	r.obs.sampler = startSampler(ctx, r.obs)
	stopFlusher := r.work.startFlusher()
	stopOffsets := poll.Every(offsetsEvery, func() { r.obs.sampleOffsets(ctx) })
	var cancelBG context.CancelFunc
	r.bg.ctx, cancelBG = context.WithCancel(ctx)
	defer func() {
		// Background producers must finish before the run ends, so their
		// results are in the ledger: on success they get their own
		// timeouts; after a failure they are stopped, their pending
		// messages recorded as unknown.
		if err != nil {
			cancelBG()
			r.nem.inForceAtEnd(context.WithoutCancel(ctx))
		}
		if werr := r.bg.wait(context.WithoutCancel(ctx), 0, nil); err == nil {
			err = werr
		}
		cancelBG()
		if serr := r.work.stopMembers("killed: the run failed", true); err == nil {
			err = serr // on success they were stopped before the final read
		}
		stopOffsets()
		stopFlusher()
		r.obs.sampler.stop()
		r.obs.collectLogs(ctx)
		end := results.RunEndEvent{End: time.Now().UTC(), Complete: err == nil}
		if err != nil {
			end.Error = r.con.red.String(err.Error())
		}
		r.ev.Emit(results.KindRunEnd, r.num, end)
	}()

	if err := r.blocks(ctx); err != nil {
		return err
	}
	if err := r.bg.wait(ctx, 0, nil); err != nil {
		return err
	}
	// Consumers stop before the final read: its sentinels are not theirs.
	if err := r.work.stopMembers("stopped at the end of the run", false); err != nil {
		return err
	}
	r.nem.inForceAtEnd(ctx) // before the heal takes the proof with it
	if err := r.nem.heal(ctx); err != nil {
		return fmt.Errorf("healing the cluster for the final read: %w", err)
	}
	if err := r.obs.final(ctx); err != nil {
		return err
	}
	if err := r.work.tallyGroups(ctx); err != nil {
		return err
	}
	r.work.flush() // the checker judges what the event stream holds
	return r.check.check(r.env)
}

// blocks runs the steps and sh blocks of the runbook, expanded for this
// run, in file order.
func (r *runner) blocks(ctx context.Context) error {
	blocks, err := r.opts.Doc.Expand(r.num)
	if err != nil {
		return err
	}
	for bi, b := range blocks {
		switch b.Kind {
		case runbook.Kafka:
			for _, s := range b.Steps {
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := r.step(ctx, bi, s); err != nil {
					return fmt.Errorf("%s: %s: %w", s.Pos, s.Text, err)
				}
			}
		case runbook.Shell:
			if err := r.shell(ctx, bi, b); err != nil {
				return fmt.Errorf("%s: sh block: %w", b.Pos, err)
			}
		}
	}
	return nil
}

// step runs one step, in the background if it ends in &.
func (r *runner) step(ctx context.Context, block int, s runbook.Step) error {
	var run stepFunc
	if bind := handlers[s.Op]; bind != nil {
		run = bind(s.Action)
	}
	if run == nil {
		return fmt.Errorf("no runner for directive %q taking %T", s.Name, s.Action)
	}
	r.con.printf("$ %s\n", s.Text)
	log := newStepLog(r.con, s, block)
	// A consume or transform step's & leaves its member process running; the step
	// itself ends once the process runs.
	if s.Background && s.Op != runbook.OpConsume && s.Op != runbook.OpTransform {
		bg := &background{step: s, done: make(chan struct{})}
		r.bg.add(bg)
		log.c.printf("  (running in the background)\n")
		go func() {
			defer close(bg.done)
			bg.err = run(r.bg.ctx, r, s, log)
			r.ev.Emit(results.KindStep, r.num, log.done(bg.err))
		}()
		return nil
	}
	err := run(ctx, r, s, log)
	r.ev.Emit(results.KindStep, r.num, log.done(err))
	if err == nil {
		err = r.evidenceErr()
	}
	return err
}

// part hands a step function its part of the run (steps.go): the
// runner is the one place that holds them all.
func (r *runner) part(ptr any) bool {
	switch p := ptr.(type) {
	case **workload:
		*p = r.work
	case **nemesis:
		*p = r.nem
	case **observation:
		*p = r.obs
	case **checker:
		*p = &r.check
	case **backgrounds:
		*p = &r.bg
	case *struct{}:
	default:
		return false
	}
	return true
}

// runTopic matches the names kafkabook gives topics: the runbook's name and
// a per-run suffix, -r<run>-<4 hex digits>.
var runTopic = regexp.MustCompile(`-r[0-9]+-[0-9a-f]{4}$`)

// deleteEarlierTopics deletes the topics of earlier runs on a cluster that
// is reused, so that each run starts with only its own, and healing and
// sampling do not slow down as runs accumulate. The last run's topics stay
// until the next run, for anyone who wants to read them.
func (r *runner) deleteEarlierTopics(ctx context.Context) error {
	names, err := r.admin.Topics(ctx)
	if err != nil {
		return fmt.Errorf("listing the topics of earlier runs: %w", err)
	}
	var old []string
	for _, n := range names {
		if runTopic.MatchString(n) && !strings.HasSuffix(n, r.suffix) {
			old = append(old, n)
		}
	}
	if len(old) == 0 {
		return nil
	}
	slices.Sort(old)
	r.con.printf("  deleting %d topic(s) of earlier runs\n", len(old))
	return r.admin.DeleteTopics(ctx, old...)
}
