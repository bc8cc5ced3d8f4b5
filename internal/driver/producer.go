package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kafkabook/kafkabook/internal/driver/wire"
	"io"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/results"
)

// StartTimeout is how long a driver may take from spawn to
// startup_complete before it is killed (a variable for tests).
var StartTimeout = 60 * time.Second

// stopGrace is how long a driver told to stop (stdin closed) may take to
// report what it has and exit before it is killed.
const stopGrace = 10 * time.Second

// Producer is a running producer driver.
type Producer struct {
	*process
	spec    Spec
	startup Startup
}

// process is a running driver: its process group, its stdin and the lines
// of its stdout. Producers and members share it.
type process struct {
	proc    launch.Process
	stdin   io.WriteCloser
	lines   *bufio.Scanner
	stderr  *tailBuffer
	exited  chan struct{} // closed once the process is reaped
	exit    launch.Exit   // how it ended, once exited is closed
	waitErr error
	once    sync.Once
	closed  sync.Once
	line    int // of stdout, counted by next: protocol errors name it
	// OnTxn, when the spec is transactional, gets each transaction as it
	// ended, after its records went to onResult (set before Run).
	OnTxn func(kafka.TxnResult)
}

// Pid is the driver's process id (the leader of its process group), where
// it runs.
func (p *Producer) Pid() int { return p.proc.Pid() }

// StartProducer spawns the driver in a process group of its own, sends it
// the spec and waits for its startup_complete, which says what client and
// configuration it runs. The driver sends nothing until Run. It exits when
// its stdin ends, so a driver outlives neither Close nor kafkabook.
func (d Driver) StartProducer(ctx context.Context, spec Spec) (*Producer, error) {
	if spec.Client == "" {
		spec.Client = d.Ref.Client
	}
	return d.startProducer(ctx, spec, spec)
}

// startProducer starts the driver with line, its spec line (franz-go's
// driver has a spec of its own), as the Producer of spec.
func (d Driver) startProducer(ctx context.Context, line any, spec Spec) (*Producer, error) {
	b, err := json.Marshal(line)
	if err != nil {
		return nil, err
	}
	proc, startup, err := d.start(ctx, b, "")
	if err != nil {
		return nil, err
	}
	return &Producer{process: proc, spec: spec, startup: startup}, nil
}

// start spawns the driver through its launcher, in a process group of its
// own, writes the spec line on its stdin and waits for startup_complete
// (at most StartTimeout). store, when not empty, is the file the driver
// writes that kafkabook reads afterwards (launch.Command.Writes).
func (d Driver) start(ctx context.Context, spec []byte, store string) (*process, Startup, error) {
	spawned := time.Now()
	p := &process{stderr: &tailBuffer{max: 64 << 10}, exited: make(chan struct{})}
	l := d.Launcher
	if l == nil {
		l = launch.Host
	}
	cmd := launch.Command{Argv: d.Argv, Env: d.Env, Files: []string{d.Dir}, Stderr: p.stderr}
	if store != "" {
		cmd.Writes = []string{store}
	}
	proc, err := l.Start(ctx, cmd)
	if err != nil {
		return nil, Startup{}, fmt.Errorf("start %s driver: %w", d.Ref, err)
	}
	p.proc, p.stdin = proc, proc.Stdin()
	p.lines = bufio.NewScanner(proc.Stdout())
	p.lines.Buffer(make([]byte, 0, 64<<10), 16<<20)
	go func() { p.exit, p.waitErr = proc.Wait(); close(p.exited) }()
	if _, err = p.stdin.Write(append(spec, '\n')); err != nil {
		p.release()
		return nil, Startup{}, fmt.Errorf("send the spec to the %s driver: %w%s", d.Ref, err, p.stderrTail())
	}
	first := make(chan error, 1)
	var ev wire.Event
	go func() { first <- p.next(&ev) }()
	timer := time.NewTimer(StartTimeout)
	defer timer.Stop()
	select {
	case err = <-first:
	case <-timer.C:
		err = fmt.Errorf("no startup_complete within %v", StartTimeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err == nil && ev.Name != wire.Startup {
		err = fmt.Errorf("%s %s: %s", ev.Name, ev.Exception, ev.Message)
	}
	if err != nil {
		p.release()
		return nil, Startup{}, fmt.Errorf("%s driver did not start: %w%s", d.Ref, err, p.stderrTail())
	}
	return p, startupOf(ev, time.Since(spawned)), nil
}

// startupOf is the Startup a startup_complete event says.
func startupOf(ev wire.Event, took time.Duration) Startup {
	s := Startup{Client: ev.Client, Library: ev.Library, Version: ev.Version, Librdkafka: ev.Librdkafka,
		Runtime: ev.Runtime, Unknown: ev.Unknown, SetByUs: ev.SetByUs, Took: took, Config: make(map[string]string, len(ev.Config))}
	for k, v := range ev.Config {
		if v != nil {
			s.Config[k] = *v
		} else {
			s.Config[k] = ""
		}
	}
	return s
}

// Startup is what the driver said at startup_complete.
func (p *Producer) Startup() Startup { return p.startup }

// next reads the next event; io.EOF when the driver closed its stdout.
func (p *process) next(ev *wire.Event) error {
	if !p.lines.Scan() {
		if err := p.lines.Err(); err != nil {
			return err
		}
		return io.EOF
	}
	p.line++
	if err := wire.Decode(p.lines.Bytes(), ev); err != nil {
		return fmt.Errorf("line %d: %w", p.line, err)
	}
	return nil
}

// Run sends the start command and calls onResult for each message's
// outcome, in the order the driver reports them (from one goroutine).
// Times count from the start command on kafkabook's clock. When ctx ends,
// the driver is told to stop (its stdin is closed): messages not yet due
// are not sent, and those in flight are reported unknown with no Done
// time. A message handed to the client that the driver never reports on
// (it crashed) is reported unknown too, and Run returns an error.
func (p *Producer) Run(ctx context.Context, onResult func(Result)) (Stats, error) {
	defer p.release()
	start := time.Now()
	stats := Stats{Start: start}
	if _, err := io.WriteString(p.stdin, "{\"command\":\"start\"}\n"); err != nil {
		return stats, fmt.Errorf("send start to the %s driver: %w%s", p.startup.Client, err, p.stderrTail())
	}
	stop := context.AfterFunc(ctx, func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(stopGrace):
			p.kill()
		}
	})
	defer stop()
	seen := make([]bool, p.spec.Count)
	txns := &txnRecords{pending: map[int]Result{}}
	var ev wire.Event
	var err error
	shutdown := false
	for err == nil && !shutdown {
		if err = p.next(&ev); err != nil {
			if !errors.Is(err, io.EOF) {
				err = fmt.Errorf("%s driver broke the protocol: %w", p.startup.Client, err)
			}
			break
		}
		switch ev.Name {
		case wire.Success, wire.SendError:
			if err = p.checkSend(&ev, seen); err != nil {
				break
			}
			seen[int(ev.N)-p.spec.From] = true
			if p.spec.TransactionalID != "" {
				txns.take(p.result(ctx, start, &ev)) // its fate is its transaction's
				break
			}
			onResult(p.result(ctx, start, &ev))
		case wire.TxnEnd:
			if err = p.checkTxn(&ev, txns); err != nil {
				break
			}
			txns.settle(p.txnResult(start, &ev), onResult, p.OnTxn)
		case wire.Shutdown:
			if err = p.checkShutdown(&ev, seen); err != nil {
				break
			}
			shutdown = true
			stats.Sent = int(ev.Sent)
			stats.MaxLag = time.Duration(ev.MaxLagNS)
			stats.Stopped = ev.Stopped
			stats.Behind = p.spec.Rate > 0 && stats.MaxLag > lagLimit(p.spec.Rate)
		}
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	end := time.Now()
	p.stdin.Close()
	<-p.exited
	if err == nil && !shutdown && ctx.Err() == nil {
		err = fmt.Errorf("%s driver exited without shutdown_complete (%v)%s", p.startup.Client, p.waitErr, p.stderrTail())
	}
	txns.open(end, onResult, p.OnTxn)
	p.unreported(seen, stats, shutdown, start, end, onResult)
	return stats, err
}

// unreported reports as unknown every message handed to the client that
// got no outcome: the first Sent when the driver said how many it sent,
// else those due before it ended.
func (p *Producer) unreported(seen []bool, stats Stats, shutdown bool, start, end time.Time, onResult func(Result)) {
	for i, ok := range seen {
		intended := start
		if p.spec.Rate > 0 {
			intended = start.Add(time.Duration(float64(i) * float64(time.Second) / p.spec.Rate))
		}
		if ok || (shutdown && i >= stats.Sent) || (!shutdown && intended.After(end)) {
			continue
		}
		onResult(Result{Num: p.spec.From + i, Intended: intended, Status: results.StatusUnknown,
			Err: "no outcome: the driver ended first", Partition: -1, Offset: -1})
	}
}

// result turns a send event into a Result.
func (p *Producer) result(ctx context.Context, start time.Time, ev *wire.Event) Result {
	r := Result{Num: int(ev.N), Intended: start.Add(time.Duration(ev.IntendedNS)),
		Done: start.Add(time.Duration(ev.AckNS)), Status: results.StatusOK,
		Partition: ev.Partition, Offset: ev.Offset}
	if ev.Name == wire.Success {
		return r
	}
	r.Offset = -1
	name := ev.Error
	if name == "" {
		name = ev.Exception
	}
	r.Err = ev.Message
	if name != "" {
		r.Err = name + ": " + ev.Message
	}
	switch ev.Class {
	case "failed":
		r.Status = results.StatusFailed
	default:
		r.Status = results.StatusUnknown
		if ctx.Err() != nil {
			r.Done = time.Time{}
		}
	}
	return r
}

// Signal sends sig to the driver's process group where it runs
// (launch.Process.Signal): pause producer's SIGSTOP, resume's SIGCONT.
func (p *process) Signal(sig syscall.Signal) error { return p.proc.Signal(sig) }

// Close kills the driver if it still runs.
func (p *Producer) Close() { p.release() }

// kill ends the driver's whole process group (a JVM's or Python's
// children too) and waits for it.
func (p *process) kill() {
	p.once.Do(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
			return
		default:
		}
		p.proc.Signal(syscall.SIGKILL)
		<-p.exited
	})
}

// release kills the driver if it still runs and closes the read end of
// its stdout, once nothing reads it any more.
func (p *process) release() {
	p.kill()
	p.closed.Do(func() { p.proc.Close() })
}

// stderrTail is the driver's last lines of stderr, for an error message.
func (p *process) stderrTail() string {
	s := strings.TrimSpace(p.stderr.String())
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return "\ndriver stderr:\n" + strings.Join(lines, "\n")
}

// lagLimit is how far behind its schedule a rate-driven producer may hand
// a message to the client before it is said not to keep up (as in package
// kafka).
func lagLimit(rate float64) time.Duration {
	return max(time.Second, time.Duration(10*float64(time.Second)/rate))
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
