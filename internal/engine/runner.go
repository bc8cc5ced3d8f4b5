package engine

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// runner executes one run: one pass through the runbook.
type runner struct {
	opts   Options
	ev     *results.EventWriter
	num    int    // run number, 1-based
	suffix string // appended to every topic name in this run
	out    io.Writer
	con    *console
	start  time.Time
	status cluster.Status // node addresses
	access cluster.Access // how to reach them (cluster.AccessOf)
	// launcher starts client processes where the cluster's clients run:
	// on this machine, or in a pod for the Kubernetes backend.
	launcher launch.Launcher
	admin    *kafka.Client
	// drivers are the client drivers installed so far, shared by the
	// invocation's runs.
	drivers *drivers

	mu        sync.Mutex
	topics    map[string]*topicState   // by label
	order     []string                 // labels in order of first use
	seen      map[string]*results.Seen // by label: what reads found at each offset
	snapshots map[string][]snapshot    // by label: the `read` steps' tallies
	finals    map[string]results.Tally // by label: the final read's tallies
	expects   []expectation            // checked after the final read
	nem       *nemesis                 // faults and repairs
	bg        []*background
	flushMu   sync.Mutex      // serialises flushes
	bgCtx     context.Context // background steps run under it; cancelled when the run fails
	sampler   *sampler

	groups     map[string]*group // consumer groups, by label
	groupOrder []string          // labels in order of their consume steps
}

// topicState is a topic of this run: the results of its sends not yet
// written to the event stream. The ledger itself lives once, in the event
// writer, which folds every batch it writes.
type topicState struct {
	label, name string
	mu          sync.Mutex
	pending     *results.Ledger  // results since the last batch
	count       int              // results recorded, batched or not
	txns        txnLog           // transactions of transactional producers (produce.go)
	producer    *driver.Producer // the driver process producing to it now (pause producer), nil if none
}

// add records one produce result: the hot path of a producer, an append to
// a few columns under the topic's lock; the flusher writes it out.
func (t *topicState) add(res kafka.Result, acks results.Acks, idempotent bool, epoch int32) {
	t.mu.Lock()
	if t.pending == nil {
		t.pending = &results.Ledger{}
	}
	t.pending.Add(int64(res.Num), acks.String(), idempotent, res.Intended, res.Done, res.Status, res.Err, res.Partition, res.Offset, epoch)
	t.count++
	t.mu.Unlock()
}

// background is a produce step still running.
type background struct {
	step runbook.Step
	done chan struct{}
	err  error
}

// realName is the topic name in the cluster for a runbook name.
func (r *runner) realName(label string) string { return label + r.suffix }

func (r *runner) run(ctx context.Context) (err error) {
	r.con = &console{w: r.out, red: newRedactor(r.opts.Backend)}
	r.topics = map[string]*topicState{}
	r.seen = map[string]*results.Seen{}
	r.snapshots = map[string][]snapshot{}
	r.finals = map[string]results.Tally{}
	r.groups = map[string]*group{}
	r.nem = &nemesis{backend: r.opts.Backend, resolve: r.nodes, downBy: map[string]runbook.Step{},
		record: func(f results.Fault) { r.ev.Emit(results.KindFault, r.num, f) }}
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
	r.drivers.setLauncher(r.launcher)
	// The SASL password reads [hidden] in whatever is captured from outside.
	r.con.red = newRedactor(r.opts.Backend, r.access.Secrets()...)
	if r.admin, err = kafka.Dial(r.brokers(r.status.Bootstrap()...)); err != nil {
		return err
	}
	defer r.admin.Close()
	if err := r.heal(ctx); err != nil {
		return fmt.Errorf("healing the cluster before the run: %w", err)
	}
	if err := r.deleteEarlierTopics(ctx); err != nil {
		return err
	}
	if r.num == 1 {
		r.recordFeatures(ctx)
	}
	if err := r.installDrivers(ctx); err != nil {
		return err
	}
	r.start = time.Now().UTC()
	r.ev.Emit(results.KindRunStart, r.num, results.RunStartEvent{Start: r.start})
	r.sampler = startSampler(ctx, r)
	stopFlusher := r.startFlusher()
	stopOffsets := every(offsetsEvery, func() { r.sampleOffsets(ctx) })
	var cancelBG context.CancelFunc
	r.bgCtx, cancelBG = context.WithCancel(ctx)
	defer func() {
		// Background producers must finish before the run ends, so their
		// results are in the ledger: on success they get their own
		// timeouts; after a failure they are stopped, their pending
		// messages recorded as unknown.
		if err != nil {
			cancelBG()
		}
		if werr := r.waitBackground(context.WithoutCancel(ctx), 0, nil); err == nil {
			err = werr
		}
		cancelBG()
		if serr := r.stopMembers("killed: the run failed", true); err == nil {
			err = serr // on success they were stopped before the final read
		}
		stopOffsets()
		stopFlusher()
		r.sampler.stop()
		r.collectLogs(ctx)
		end := results.RunEndEvent{End: time.Now().UTC(), Complete: err == nil}
		if err != nil {
			end.Error = r.con.red.String(err.Error())
		}
		r.ev.Emit(results.KindRunEnd, r.num, end)
	}()

	if err := r.blocks(ctx); err != nil {
		return err
	}
	if err := r.waitBackground(ctx, 0, nil); err != nil {
		return err
	}
	// Consumers stop before the final read: its sentinels are not theirs.
	if err := r.stopMembers("stopped at the end of the run", false); err != nil {
		return err
	}
	if err := r.final(ctx); err != nil {
		return err
	}
	if err := r.tallyGroups(ctx); err != nil {
		return err
	}
	return r.checkExpectations()
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
	if bind := runners[s.Op]; bind != nil {
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
		r.mu.Lock()
		r.bg = append(r.bg, bg)
		r.mu.Unlock()
		log.c.printf("  (running in the background)\n")
		go func() {
			defer close(bg.done)
			bg.err = run(r.bgCtx, r, s, log)
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

// evidenceErr fails the run once its evidence can no longer be written: a
// run whose evidence is lost has nothing to show.
func (r *runner) evidenceErr() error {
	if err := r.ev.Err(); err != nil {
		return fmt.Errorf("writing the evidence: %w", err)
	}
	return nil
}

// waitBackground waits for every background step, up to timeout (0: each
// step's own timeout bounds it). The first background error is returned.
func (r *runner) waitBackground(ctx context.Context, timeout time.Duration, log *stepLog) error {
	r.mu.Lock()
	pending := slices.Clone(r.bg)
	r.mu.Unlock()
	var deadline <-chan time.Time
	if timeout > 0 {
		deadline = time.After(timeout)
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	start := time.Now()
	for _, bg := range pending {
		for waiting := true; waiting; {
			select {
			case <-bg.done:
				waiting = false
			case <-deadline:
				return fmt.Errorf("background step %s still running after %s", bg.step.Pos, timeout)
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
				if log != nil {
					log.progress("waiting for background step at line %d (%.0fs)", bg.step.Pos.Line, time.Since(start).Seconds())
				}
			}
		}
	}
	for _, bg := range pending {
		if bg.err != nil {
			return fmt.Errorf("background step %s: %w", bg.step.Pos, bg.err)
		}
	}
	return nil
}

// node resolves a target (k2, leader(T), followers(T), coordinator(...)) to node names.
func (r *runner) nodes(ctx context.Context, t runbook.Target) ([]string, error) {
	if t.Node != "" {
		return []string{t.Node}, nil
	}
	if t.Coordinator != nil {
		n, err := r.coordinatorNode(ctx, *t.Coordinator)
		if err != nil {
			return nil, err
		}
		return []string{n}, nil
	}
	topic := t.Leader + t.Followers
	parts, err := r.partitions(ctx, r.realName(topic))
	if err != nil || len(parts) == 0 {
		return nil, fmt.Errorf("%s: no metadata for %s: %v", t, topic, err)
	}
	p := parts[0]
	if t.Leader != "" {
		if p.Leader < 0 {
			return nil, fmt.Errorf("%s: partition 0 of %s has no leader", t, topic)
		}
		return []string{fmt.Sprintf("k%d", p.Leader)}, nil
	}
	var out []string
	for _, id := range p.Replicas {
		if id != p.Leader {
			out = append(out, fmt.Sprintf("k%d", id))
		}
	}
	return out, nil
}

// addr is a node's broker address.
func (r *runner) addr(node string) (string, error) {
	n, ok := r.status.Node(node)
	if !ok {
		return "", fmt.Errorf("no node %s in the cluster", node)
	}
	return n.Address, nil
}

// seeds is the bootstrap list for a --via node (the reachable nodes when
// via is the zero Target), and the name of the node asked.
func (r *runner) seeds(ctx context.Context, via runbook.Target) (kafka.Brokers, string, error) {
	if via == (runbook.Target{}) {
		return r.reachable(ctx), "", nil
	}
	names, err := r.nodes(ctx, via)
	if err != nil {
		return kafka.Brokers{}, "", err
	}
	a, err := r.addr(names[0])
	return r.brokers(a), names[0], err
}

// brokers is the cluster bootstrapped from addrs, reached as its backend
// says (see cluster.Access).
func (r *runner) brokers(addrs ...string) kafka.Brokers {
	return kafka.Brokers{Seeds: addrs, Access: r.access}
}

// partitions is fresh metadata of topics (all when none), asked of the
// nodes that can answer now.
func (r *runner) partitions(ctx context.Context, topics ...string) ([]kafka.Partition, error) {
	_, ids := r.running(ctx)
	return r.admin.PartitionsFrom(ctx, ids, topics...)
}

// running lists the addresses and ids of the nodes that are up and on the
// network, by the backend's account.
func (r *runner) running(ctx context.Context) (addrs []string, ids []int32) {
	st, err := r.opts.Backend.Status(ctx)
	if err != nil {
		return nil, nil
	}
	for _, n := range st.Nodes {
		if n.State == cluster.Running {
			addrs = append(addrs, n.Address)
			ids = append(ids, int32(n.ID))
		}
	}
	return addrs, ids
}

// reachable is the bootstrap list without nodes that are isolated, paused
// or down: a new client that picked one of those first would spend its
// dial timeout there, and the first message would carry that wait.
func (r *runner) reachable(ctx context.Context) kafka.Brokers {
	if addrs, _ := r.running(ctx); len(addrs) > 0 {
		return r.brokers(addrs...)
	}
	return r.brokers(r.status.Bootstrap()...)
}

// topic returns the ledger of a label, creating it.
func (r *runner) topic(label string) *topicState {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.topics[label]
	if t == nil {
		t = &topicState{label: label, name: r.realName(label)}
		r.topics[label] = t
		r.order = append(r.order, label)
		r.ev.Emit(results.KindTopic, r.num, results.Topic{Name: t.name, Label: label})
	}
	return t
}

// flushEvery is how often the results of running producers are written to
// events.jsonl, one messages event per topic: the stream's promise of at
// most 250 ms between a result and its record.
const flushEvery = 250 * time.Millisecond

// startFlusher writes the pending results of every topic every flushEvery
// until the returned function is called, which writes the last ones.
func (r *runner) startFlusher() (stop func()) {
	stopTicks := every(flushEvery, r.flush)
	return func() {
		stopTicks()
		r.flush()
	}
}

// every calls f every d, on a goroutine of its own, until stop is called;
// stop returns once f is no longer running.
func every(d time.Duration, f func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				f()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// flush writes every topic's pending results as one messages event each,
// and folds them into the ledger the event writer keeps. Flushes are
// serialised, so a topic's batches stay in order.
func (r *runner) flush() {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	r.mu.Lock()
	topics := make([]*topicState, 0, len(r.order))
	for _, label := range r.order {
		topics = append(topics, r.topics[label])
	}
	r.mu.Unlock()
	for _, t := range topics {
		t.mu.Lock()
		batch := t.pending
		t.pending = nil
		t.mu.Unlock()
		if batch.Len() > 0 {
			r.ev.Emit(results.KindMessages, r.num, results.MessagesEvent{Topic: t.name, Label: t.label, Ledger: batch})
		}
		r.flushTxns(t) // after the messages event: a transaction follows its records
	}
	r.flushGroups()
}

// reserve makes room in a topic's ledger for n more results.
func (r *runner) reserve(t *topicState, n int) {
	r.ev.Reserve(r.num, t.name, t.label, n)
}

// ledger is a topic's ledger so far, every result recorded until now
// included: a snapshot that later results do not change.
func (r *runner) ledger(label string) results.Topic {
	t := r.topic(label)
	r.flush()
	tp := r.ev.Ledger(r.num, t.name)
	tp.Label = label
	return tp
}

// recorded is how many results a topic has.
func (t *topicState) recorded() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.count
}

// realTopics lists the cluster names of every topic used so far.
func (r *runner) realTopics() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, t := range r.topics {
		out = append(out, t.name)
	}
	slices.Sort(out)
	return out
}

// label maps a real topic name back to its runbook name.
func (r *runner) label(name string) string {
	return strings.TrimSuffix(name, r.suffix)
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
