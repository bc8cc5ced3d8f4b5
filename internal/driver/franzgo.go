package driver

// franz-go's driver: kafkabook's franz-go producer (kafka.Produce) as a
// process behind the driver protocol, started where the cluster's clients
// run (this machine, the Kubernetes backend's clients' pod), so that its
// connections, its acks and a pause producer are a process's of the
// cluster's network, as the other clients' are.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/kafkabook/kafkabook/internal/driver/wire"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/consumer"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/results"
)

// FranzGoSubcommand is the hidden command line word that makes a
// kafkabook binary (or a test binary that forwards it) franz-go's
// producer driver: kafkabook franz-go-driver, its spec on stdin.
const FranzGoSubcommand = "franz-go-driver"

// FranzGoSpec is franz-go's spec line: the producer (kafka.ProduceSpec)
// and how to reach its brokers. The SASL password
// is not in it: the driver reads it from cluster.PasswordEnv.
type FranzGoSpec struct {
	Brokers []string          `json:"brokers"`
	Access  cluster.Access    `json:"access,omitempty"`
	Produce kafka.ProduceSpec `json:"produce"`
	Txn     *kafka.TxnSpec    `json:"txn,omitempty"`
}

// FranzGo is franz-go's driver: exe, this kafkabook binary, started by l
// with FranzGoSubcommand.
func FranzGo(exe string, l launch.Launcher, access cluster.Access) Driver {
	d := Driver{Ref: Ref{Client: "franz-go"}, Dir: exe, Argv: []string{exe, FranzGoSubcommand}, Launcher: l}
	if access.SASL != nil {
		d.Env = cluster.Environ(access)
	}
	return d
}

// StartFranzGo starts franz-go's driver with spec, as StartProducer
// starts another client's.
func (d Driver) StartFranzGo(ctx context.Context, spec FranzGoSpec) (*Producer, error) {
	spec.Access.Dial = nil
	ps := Spec{Topic: spec.Produce.Topic, Bootstrap: spec.Brokers, From: spec.Produce.From, Count: spec.Produce.Count, Rate: spec.Produce.Rate}
	if spec.Txn != nil {
		ps.TransactionalID, ps.TxnSize, ps.AbortEvery = spec.Txn.ID, spec.Txn.Size, spec.Txn.AbortEvery
	}
	return d.startProducer(ctx, spec, ps)
}

// franzGoLine is franz-go's spec line: a producer's (FranzGoSpec), or
// with role "member" a group or transform member's (consumer.Spec), as
// the other drivers' lines say their role.
type franzGoLine struct {
	Role   string         `json:"role,omitempty"`
	Member *consumer.Spec `json:"member,omitempty"`
	FranzGoSpec
}

// FranzGoMemberLine is the spec line of a franz-go member: its Dial, which
// cannot travel, left out.
func FranzGoMemberLine(spec consumer.Spec) ([]byte, error) {
	spec.Access.Dial = nil
	return json.Marshal(franzGoLine{Role: "member", Member: &spec})
}

// StartFranzGoMember starts franz-go's driver as the group or transform
// member spec says, as StartMember starts another client's member.
func (d Driver) StartFranzGoMember(ctx context.Context, spec consumer.Spec) (*Member, error) {
	line, err := FranzGoMemberLine(spec)
	if err != nil {
		return nil, err
	}
	return d.startMember(ctx, rawLine(line), spec.Store)
}

// rawLine is a spec line already written.
type rawLine []byte

func (l rawLine) MarshalJSON() ([]byte, error) { return l, nil }

// FranzGoMain is the driver's process: it reads its spec from stdin and
// runs the producer or the member it says, writing the protocol's events
// on stdout, and returns the exit code. A producer waits for the start
// command, and when stdin ends (kafkabook told it to stop, or died) stops
// sending and reports what it has.
func FranzGoMain(stdin io.Reader, stdout io.Writer) int {
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var line franzGoLine
	if !in.Scan() {
		fmt.Fprintf(os.Stderr, "%s: no spec on stdin\n", FranzGoSubcommand)
		return 2
	}
	if err := json.Unmarshal(in.Bytes(), &line); err != nil {
		fmt.Fprintf(os.Stderr, "%s: bad spec: %v\n", FranzGoSubcommand, err)
		return 2
	}
	if line.Role == "member" && line.Member != nil {
		return franzGoMember(*line.Member, in, stdout)
	}
	spec := line.FranzGoSpec
	spec.Access.PasswordFromEnv()
	w := &eventWriter{w: bufio.NewWriterSize(stdout, 64<<10)}
	b := kafka.Brokers{Seeds: spec.Brokers, Access: spec.Access}
	if err := w.startup(b, spec.Produce, spec.Txn); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", FranzGoSubcommand, err)
		return 2
	}
	if !in.Scan() {
		return 0 // told to stop before the start
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for in.Scan() {
		}
		cancel()
	}()
	stopFlush := w.flushEvery(20 * time.Millisecond)
	start := time.Now()
	onResult := func(r kafka.Result) { w.result(start, r) }
	var stats kafka.ProduceStats
	var err error
	if spec.Txn != nil {
		stats, err = kafka.ProduceTransactional(ctx, b, spec.Produce, *spec.Txn, onResult, func(x kafka.TxnResult) { w.txn(start, x) })
	} else {
		stats, err = kafka.Produce(ctx, b, spec.Produce, onResult)
	}
	stopFlush()
	if err != nil {
		w.flush()
		fmt.Fprintf(os.Stderr, "%s: %v\n", FranzGoSubcommand, err)
		return 1
	}
	w.shutdown(stats)
	return 0
}

// franzGoMember runs a member: startup_complete with franz-go's
// configuration in force, the member's events (consumer.Serve) until
// SIGTERM, then shutdown_complete. When stdin ends kafkabook is gone, and
// a member must not outlive its run: it kills itself, as every driver's
// member does.
func franzGoMember(spec consumer.Spec, in *bufio.Scanner, stdout io.Writer) int {
	spec.Access.PasswordFromEnv()
	info, err := consumer.InForce(spec)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: member %d of group %s: %v\n", FranzGoSubcommand, spec.Member, spec.Group, err)
		return 2
	}
	w := &eventWriter{w: bufio.NewWriter(stdout)}
	w.json(map[string]any{"name": wire.Startup, "client": info.Client, "library": info.Library, "version": info.Version,
		"runtime": info.Runtime, "config": info.Config, "set_by_kafkabook": info.SetByKafkabook})
	w.flush()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		for in.Scan() {
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}()
	// The member's events go out as it writes them (a crash must not
	// lose the last of them in a buffer).
	if err := consumer.Serve(ctx, spec, stdout); err != nil {
		fmt.Fprintf(os.Stderr, "member %d of group %s: %v\n", spec.Member, spec.Group, err)
		return 1
	}
	w.json(map[string]any{"name": wire.Shutdown})
	w.flush()
	return 0
}

// eventWriter writes the protocol's lines; franz-go calls onResult from
// its own goroutines.
type eventWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	buf []byte
}

// startup says franz-go's version and its configuration in force, read
// back from a client built as the producer's is, with the options
// kafkabook set (kafka.ProducerInForce).
func (e *eventWriter) startup(b kafka.Brokers, p kafka.ProduceSpec, txn *kafka.TxnSpec) error {
	info, err := kafka.ProducerInForce(b, p, txn)
	if err != nil {
		return err
	}
	e.json(map[string]any{"name": wire.Startup, "client": info.Client, "library": info.Library, "version": info.Version,
		"runtime": info.Runtime, "config": info.Config, "set_by_kafkabook": info.SetByKafkabook})
	e.flush()
	return nil
}

// result writes one send's outcome, its times from start.
func (e *eventWriter) result(start time.Time, r kafka.Result) {
	intended, ack := r.Intended.Sub(start).Nanoseconds(), int64(0)
	if !r.Done.IsZero() {
		ack = r.Done.Sub(start).Nanoseconds()
	}
	if r.Status == results.StatusOK {
		e.mu.Lock()
		b := append(e.buf[:0], wire.SuccessPrefix...)
		b = append(b, `"n":`...)
		b = strconv.AppendInt(b, int64(r.Num), 10)
		b = append(b, `,"partition":`...)
		b = strconv.AppendInt(b, int64(r.Partition), 10)
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, r.Offset, 10)
		b = append(b, `,"intended_ns":`...)
		b = strconv.AppendInt(b, intended, 10)
		b = append(b, `,"ack_ns":`...)
		b = strconv.AppendInt(b, ack, 10)
		b = append(b, "}\n"...)
		e.w.Write(b)
		e.buf = b
		e.mu.Unlock()
		return
	}
	class := "unknown"
	if r.Status == results.StatusFailed {
		class = "failed"
	}
	e.json(map[string]any{"name": wire.SendError, "n": r.Num, "partition": r.Partition, "class": class,
		"message": r.Err, "intended_ns": intended, "ack_ns": ack})
}

// txn writes how a transaction ended.
func (e *eventWriter) txn(start time.Time, x kafka.TxnResult) {
	first := 0
	if len(x.Nums) > 0 {
		first = x.Nums[0]
	}
	e.json(map[string]any{"name": wire.TxnEnd, "txn": x.N, "first": first, "count": len(x.Nums),
		"outcome": string(x.Outcome), "on_purpose": x.OnPurpose, "producer_id": x.ProducerID, "epoch": x.Epoch,
		"error": x.Err, "start_ns": x.Start.Sub(start).Nanoseconds(), "end_ns": x.End.Sub(start).Nanoseconds()})
}

// shutdown says how the producer kept its schedule, last.
func (e *eventWriter) shutdown(s kafka.ProduceStats) {
	e.json(map[string]any{"name": wire.Shutdown, "sent": s.Sent, "max_lag_ns": s.MaxLag.Nanoseconds(), "stopped": s.Stopped})
	e.flush()
}

func (e *eventWriter) json(v any) {
	b, _ := json.Marshal(v) // plain data: cannot fail
	e.mu.Lock()
	e.w.Write(append(b, '\n'))
	e.mu.Unlock()
}

func (e *eventWriter) flush() {
	e.mu.Lock()
	e.w.Flush()
	e.mu.Unlock()
}

// flushEvery flushes the lines written so far every d, so that kafkabook
// shows progress, without a write per message; the returned func stops it.
func (e *eventWriter) flushEvery(d time.Duration) func() {
	return poll.Every(d, e.flush)
}
