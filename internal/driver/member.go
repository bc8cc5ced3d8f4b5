package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/kafkabook/kafkabook/internal/driver/wire"
	"io"
	"strings"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/results"
)

// MemberSpec is one consumer group member a driver runs
// (docs/driver-protocol.md, "Consumer group members"): the same work on
// the same store as kafkabook's own member (package consumer), through
// the driver's client.
type MemberSpec struct {
	Client     string        // java, spring, librdkafka: the driver's name for itself
	Bootstrap  []string      // the group's cluster
	Topic      string        // the topic the member subscribes to
	Group      string        // group.id
	Member     int           // the member's number in the group, in every event
	Commit     string        // auto, after or before
	AutoCommit time.Duration // with auto: auto.commit.interval.ms; 0: the client's default
	Batch      int           // the most records a poll returns
	Work       time.Duration // the processing time of one record
	Dedup      string        // none, table or transactional
	CrashAt    int           // 0: no crash
	CrashPoint string        // work, effect or handled
	Store      string        // the group's SQLite file, absolute
	Handoff    bool          // records handled by one worker thread, not the poll loop
	AckMode    string        // spring's ContainerProperties.AckMode, lower case; "" elsewhere
	// Properties are consumer properties by the client's own names,
	// applied after the settings above.
	Properties map[string]string
	Access     map[string]string // the cluster's access (SecurityProperties), applied last
}

// MarshalJSON writes the spec line: "role":"member" and durations in
// milliseconds.
func (s MemberSpec) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Role       string            `json:"role"`
		Client     string            `json:"client"`
		Bootstrap  []string          `json:"bootstrap_servers"`
		Topic      string            `json:"topic"`
		Group      string            `json:"group"`
		Member     int               `json:"member"`
		Commit     string            `json:"commit"`
		AutoCommit int64             `json:"auto_commit_ms"`
		Batch      int               `json:"batch"`
		Work       int64             `json:"work_ms"`
		Dedup      string            `json:"dedup"`
		CrashAt    int               `json:"crash_at"`
		CrashPoint string            `json:"crash_point"`
		Store      string            `json:"store"`
		Handoff    bool              `json:"handoff"`
		AckMode    string            `json:"ack_mode"`
		Properties map[string]string `json:"properties"`
		Access     map[string]string `json:"access,omitempty"`
	}{"member", s.Client, s.Bootstrap, s.Topic, s.Group, s.Member, s.Commit, s.AutoCommit.Milliseconds(),
		s.Batch, s.Work.Milliseconds(), s.Dedup, s.CrashAt, s.CrashPoint, s.Store, s.Handoff, s.AckMode, s.Properties, s.Access})
}

// Member is a running member driver. Its stdin stays open for its life:
// the member kills itself when stdin ends, so that it outlives neither
// Close nor kafkabook.
type Member struct {
	*process
	startup  Startup
	shutdown bool // it wrote shutdown_complete
}

// StartMember spawns the driver as a group member and waits for its
// startup_complete; the member consumes from then on.
func (d Driver) StartMember(ctx context.Context, spec MemberSpec) (*Member, error) {
	if spec.Client == "" {
		spec.Client = d.Ref.Client
	}
	return d.startMember(ctx, spec, spec.Store)
}

// startMember spawns the driver with a member's spec line (a group
// member's or a transform member's) and waits for its startup_complete.
func (d Driver) startMember(ctx context.Context, spec json.Marshaler, store string) (*Member, error) {
	line, err := spec.MarshalJSON()
	if err != nil {
		return nil, err
	}
	proc, startup, err := d.start(ctx, line, store)
	if err != nil {
		return nil, err
	}
	return &Member{process: proc, startup: startup}, nil
}

// Startup is what the member said at startup_complete.
func (m *Member) Startup() Startup { return m.startup }

// Pid is the member's process id (the leader of its process group), where
// it runs.
func (m *Member) Pid() int { return m.proc.Pid() }

var namedPrefix = []byte(`{"name":`)

// Next returns the member's next event, in the order it wrote them;
// io.EOF once its stdout has ended (it exited or was killed). Named lines
// (shutdown_complete) are noted, not returned; a line that is neither goes
// to the member's stderr tail.
func (m *Member) Next() (results.ConsumerEvent, error) {
	for {
		if !m.lines.Scan() {
			if err := m.lines.Err(); err != nil {
				return results.ConsumerEvent{}, err
			}
			return results.ConsumerEvent{}, io.EOF
		}
		line := m.lines.Bytes()
		if bytes.HasPrefix(line, namedPrefix) {
			var ev wire.Event
			if err := wire.Decode(line, &ev); err != nil {
				return results.ConsumerEvent{}, err
			}
			if ev.Name == wire.Shutdown {
				m.shutdown = true
			}
			continue
		}
		var ev results.ConsumerEvent
		if err := json.Unmarshal(line, &ev); err != nil || ev.Kind == "" {
			// Not ours: kept with the member's last words, as kafkabook's
			// own member's unreadable lines are.
			m.stderr.Write(append(append([]byte("unreadable report: "), wire.Truncate(line, 200)...), '\n'))
			continue
		}
		return ev, nil
	}
}

// memberProps are the consumer settings, by either client's names, that
// decide what a member commits and reads; the rest of the configuration is
// in the driver's startup_complete.
var memberProps = []string{"group.protocol", "enable.auto.commit", "auto.commit.interval.ms", "enable.auto.offset.store",
	"max.poll.records", "auto.offset.reset", "isolation.level", "session.timeout.ms", "max.poll.interval.ms", "container.ackMode"}

// DescribeMember is Describe for a consumer group member: the library,
// then the settings in force that decide what it commits and reads.
func (s Startup) DescribeMember() string {
	return s.describe(memberProps)
}

// ShutDown reports whether the member wrote shutdown_complete (a clean
// stop).
func (m *Member) ShutDown() bool { return m.shutdown }

// Wait waits for the member's process to end and returns how it ended.
func (m *Member) Wait() (launch.Exit, error) {
	<-m.exited
	return m.exit, m.waitErr
}

// Stop asks the member to stop cleanly (SIGTERM): it finishes the records
// in hand, closes its consumer and exits.
func (m *Member) Stop() error { return m.proc.Signal(syscall.SIGTERM) }

// Kill ends the member's whole process group with SIGKILL at once and
// waits for it.
func (m *Member) Kill() {
	m.proc.Signal(syscall.SIGKILL)
	<-m.exited
}

// Close kills the member if it still runs and releases its stdout; call
// it once its events are read.
func (m *Member) Close() { m.release() }

// StderrTail is the member's last lines of stderr (the client's logging),
// for an error message.
func (m *Member) StderrTail() string { return m.stderrTail() }

// Exited is closed once the member's process has ended.
func (m *Member) Exited() <-chan struct{} { return m.exited }

// StderrLines are the lines of the member's stderr (the client's logging)
// kept so far, the last 64 KiB, in the order written; a line still being
// written is left out.
func (m *Member) StderrLines() []string {
	s := m.stderr.String()
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	} else {
		return nil
	}
	return strings.Split(s, "\n")
}
