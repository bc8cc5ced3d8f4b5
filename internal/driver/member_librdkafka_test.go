package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/consumer"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kgo"
)

// memberRecords is how many records each member test produces: m-001 to
// m-030, keys k0 to k2, and an event-id header e-NNN on the odd ones (the
// even ones have the message id as event id).
const memberRecords = 30

// eventOf is the event id the member must use for message n.
func eventOf(n int) string {
	if n%2 == 1 {
		return fmt.Sprintf("e-%03d", n)
	}
	return results.MessageID(int64(n))
}

// ids names messages from to to (inclusive) by their ids.
func ids(from, to int) []string {
	var out []string
	for n := from; n <= to; n++ {
		out = append(out, results.MessageID(int64(n)))
	}
	return out
}

// rawMember is a member driver process spawned by hand: the spec on its
// stdin, its lines read as they come. spawnRawMember stands in for the
// engine's driver.StartMember in this test only.
type rawMember struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	startup map[string]any // startup_complete or startup_error
	took    time.Duration  // from spawn to startup_complete
	lines   chan string    // the lines after startup; closed at EOF
	events  []results.ConsumerEvent
	names   []string // the named lines after startup (shutdown_complete)
}

// spawnRawMember starts d as a member with spec and waits for its first
// line.
func spawnRawMember(t *testing.T, d Driver, spec map[string]any) *rawMember {
	t.Helper()
	spec["role"] = "member"
	spec["client"] = "librdkafka"
	line, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	m := &rawMember{cmd: exec.Command(d.Argv[0], d.Argv[1:]...), lines: make(chan string, 1024)}
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr strings.Builder
	m.cmd.Stderr = &stderr
	if m.stdin, err = m.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := m.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("member %v stderr:\n%s", spec["member"], tailLines(stderr.String(), 20))
		}
	})
	if _, err := m.stdin.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			m.lines <- sc.Text()
		}
		close(m.lines)
	}()
	select {
	case l, ok := <-m.lines:
		if !ok || json.Unmarshal([]byte(l), &m.startup) != nil {
			t.Fatalf("member's first line %q (stderr %s)", l, stderr.String())
		}
	case <-time.After(StartTimeout):
		t.Fatalf("no startup line within %v", StartTimeout)
	}
	m.took = time.Since(start)
	return m
}

// read takes lines until until says it has what it waits for or the
// member's stdout ends; it fails the test after timeout.
func (m *rawMember) read(t *testing.T, timeout time.Duration, until func() bool) {
	t.Helper()
	deadline := time.After(timeout)
	for !until() {
		select {
		case l, ok := <-m.lines:
			if !ok {
				return
			}
			if strings.HasPrefix(l, `{"name":`) {
				m.names = append(m.names, l)
				continue
			}
			var ev results.ConsumerEvent
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatalf("member line %q: %v", l, err)
			}
			m.events = append(m.events, ev)
		case <-deadline:
			t.Fatalf("member: still waiting after %v; events so far: %+v", timeout, m.events)
		}
	}
}

// wait reaps the process and returns its wait status.
func (m *rawMember) wait(t *testing.T) syscall.WaitStatus {
	t.Helper()
	err := m.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return m.cmd.ProcessState.Sys().(syscall.WaitStatus)
}

// ids returns the message ids of the events of kind, in order.
func (m *rawMember) ids(kind string) []string {
	var out []string
	for _, ev := range m.events {
		if ev.Kind == kind {
			out = append(out, ev.ID)
		}
	}
	return out
}

// commits returns the offsets of the commit events, in order.
func (m *rawMember) commits() []int64 {
	var out []int64
	for _, ev := range m.events {
		if ev.Kind == results.EventCommit {
			out = append(out, ev.Offset)
		}
	}
	return out
}

// memberCase is one crash scenario: the first member crashes on its 7th
// record, a successor resumes from what was committed.
type memberCase struct {
	name       string
	commit     string
	handoff    bool
	dedup      string
	point      string
	autoMs     int
	properties map[string]string
	// What the modes imply, measured against the store and the group:
	committed   int64    // the group's offset once the first member is gone
	unapplied   []string // never applied
	twice       []string // applied twice
	redelivered []string // delivered to both members
	skipped     []string // skipped by the successor (event_handled)
}

// TestLibrdkafkaMember runs the librdkafka member against a real
// single-node cluster: for each commit mode (and handoff, dedup), a member
// that crashes on its 7th record, the store read directly, the group's
// committed offset read by franz-go's admin client, and a successor that
// resumes there and stops cleanly on SIGTERM.
func TestLibrdkafkaMember(t *testing.T) {
	d := installFor(t, Ref{Client: "librdkafka"})
	t.Run("startup_error", func(t *testing.T) {
		m := spawnRawMember(t, d, map[string]any{"bootstrap_servers": []string{"127.0.0.1:1"}, "topic": "t", "group": "g",
			"member": 1, "commit": "after", "batch": 1, "store": filepath.Join(t.TempDir(), "g.db"),
			"properties": map[string]string{"bogus.x": "1"}})
		ws := m.wait(t)
		if m.startup["name"] != "startup_error" || !strings.Contains(fmt.Sprint(m.startup["message"]), "bogus.x") || ws.ExitStatus() != 2 {
			t.Errorf("an unknown property gave %v, exit %d; want startup_error naming it, exit 2", m.startup, ws.ExitStatus())
		}
	})
	t.Run("stdin-eof", func(t *testing.T) {
		m := spawnRawMember(t, d, map[string]any{"bootstrap_servers": []string{"127.0.0.1:1"}, "topic": "t", "group": "g",
			"member": 1, "commit": "after", "batch": 1, "store": filepath.Join(t.TempDir(), "g.db")})
		if m.startup["name"] != "startup_complete" {
			t.Fatalf("startup: %v", m.startup)
		}
		t.Logf("startup_complete after %v", m.took)
		m.stdin.Close()
		if ws := m.wait(t); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("after its stdin closed the member ended with %v, want killed by its own SIGKILL", ws)
		}
	})

	_, st := testcluster.Start(t, 1, nil)
	admin, err := kafka.Dial(st.Bootstrap()...)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, handoff := range []bool{false, true} {
		t.Run(fmt.Sprintf("sigterm-handoff=%v", handoff), func(t *testing.T) { testMemberStop(t, d, admin, st.Bootstrap(), handoff) })
	}
	for _, tc := range []memberCase{
		{name: "after", commit: "after", dedup: "none", point: "effect",
			committed: 6, twice: ids(7, 7), redelivered: ids(7, 10)},
		{name: "after-handoff", commit: "after", handoff: true, dedup: "none", point: "effect",
			committed: 6, twice: ids(7, 7), redelivered: ids(7, 20)},
		{name: "before", commit: "before", dedup: "none", point: "work",
			committed: 7, unapplied: ids(7, 7), redelivered: ids(8, 10)},
		{name: "auto", commit: "auto", autoMs: 200, dedup: "none", point: "work",
			committed: 10, unapplied: ids(7, 10)},
		{name: "auto-handoff", commit: "auto", autoMs: 200, handoff: true, dedup: "none", point: "work",
			committed: 20, unapplied: ids(7, 20)},
		{name: "auto-nostore", commit: "auto", autoMs: 200, dedup: "none", point: "work",
			properties: map[string]string{"enable.auto.offset.store": "false"},
			committed:  -1, twice: ids(1, 6), redelivered: ids(1, 10)},
		{name: "table-effect", commit: "after", dedup: "table", point: "effect",
			committed: 6, twice: ids(7, 7), redelivered: ids(7, 10)},
		{name: "table-handled", commit: "after", dedup: "table", point: "handled",
			committed: 6, redelivered: ids(7, 10), skipped: ids(7, 7)},
	} {
		t.Run(tc.name, func(t *testing.T) { testMemberCrash(t, d, admin, st.Bootstrap(), tc) })
	}
}

func testMemberCrash(t *testing.T, d Driver, admin *kafka.Client, seeds []string, tc memberCase) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic, group := "mr-"+tc.name, "mr-g-"+tc.name
	if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: topic, Partitions: 1, ReplicationFactor: 1}); err != nil {
		t.Fatal(err)
	}
	produceMemberRecords(t, ctx, seeds, topic)
	store := filepath.Join(t.TempDir(), "group.db")
	work := 50
	if tc.commit == "auto" {
		work = 100 // the crash at the 7th record comes 650 ms in: after three auto-commits of 200 ms
	}
	props := map[string]string{"session.timeout.ms": "6000", "heartbeat.interval.ms": "1000"}
	for k, v := range tc.properties {
		props[k] = v
	}
	spec := func(member, crashAt, workMs int) map[string]any {
		return map[string]any{"bootstrap_servers": seeds, "topic": topic, "group": group, "member": member,
			"commit": tc.commit, "auto_commit_ms": tc.autoMs, "batch": 10, "work_ms": workMs, "dedup": tc.dedup,
			"crash_at": crashAt, "crash_point": tc.point, "store": store, "handoff": tc.handoff, "properties": props}
	}

	// The first member: crashes on its 7th record, killed by its own SIGKILL.
	m1 := spawnRawMember(t, d, spec(1, 7, work))
	if m1.startup["name"] != "startup_complete" {
		t.Fatalf("startup: %v", m1.startup)
	}
	t.Logf("member 1 startup_complete after %v", m1.took)
	m1.read(t, time.Minute, func() bool { return false })
	ws := m1.wait(t)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("member 1 ended with %v, want killed by SIGKILL", ws)
	}
	if err := syscall.Kill(m1.cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("member 1's pid after the crash: %v, want no such process", err)
	}
	if last := m1.events[len(m1.events)-1]; last.Kind != results.EventCrash || last.ID != "m-007" || last.Offset != 6 {
		t.Errorf("member 1's last event %+v, want its crash on m-007 at offset 6", last)
	}
	committed, err := admin.Committed(ctx, group, topic)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := committed[0]
	if !ok {
		got = -1
	}
	t.Logf("member 1: commits reported %v; the group's committed offset after its crash %d", m1.commits(), got)
	if got != tc.committed {
		t.Errorf("committed offset after the crash %d, want %d", got, tc.committed)
	}
	if tc.commit != "auto" && (len(m1.commits()) == 0 || m1.commits()[len(m1.commits())-1] != tc.committed) {
		t.Errorf("member 1 reported commits %v, the last should be the group's %d", m1.commits(), tc.committed)
	}

	// The successor: resumes from the committed offset, stops on SIGTERM.
	m2 := spawnRawMember(t, d, spec(2, 0, 5))
	t.Logf("member 2 startup_complete after %v", m2.took)
	start := time.Now()
	m2.read(t, time.Minute, func() bool {
		handledLast := false
		for _, ev := range m2.events {
			if ev.Offset == memberRecords-1 && (ev.Kind == results.EventEffect || ev.Kind == results.EventSkip) {
				handledLast = true
			}
		}
		return handledLast && (tc.commit == "auto" || slices.Contains(m2.commits(), memberRecords))
	})
	t.Logf("member 2 handled up to m-%03d %v after its start", memberRecords, time.Since(start))
	if err := m2.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	m2.read(t, 30*time.Second, func() bool { return false })
	if ws := m2.wait(t); !ws.Exited() || ws.ExitStatus() != 0 || !slices.Contains(m2.names, `{"name":"shutdown_complete"}`) {
		t.Errorf("member 2 after SIGTERM: %v, lines %v; want exit 0 after shutdown_complete", ws, m2.names)
	}
	if tc.commit == "auto" && tc.properties["enable.auto.offset.store"] != "false" && !slices.Contains(m2.commits(), memberRecords) {
		t.Errorf("member 2's commits %v: close() should commit %d, reported by on_commit", m2.commits(), memberRecords)
	}
	if first := m2.ids(results.EventDeliver); len(first) == 0 || first[0] != results.MessageID(max(tc.committed, 0)+1) {
		t.Errorf("member 2's first delivery %v, want the record at the committed offset %d", first, tc.committed)
	}

	// The store, read directly, and the exact sets the modes imply.
	s, err := consumer.OpenStore(store)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Read(ctx)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	var unapplied, twice []string
	likes := map[string]int64{}
	for n := 1; n <= memberRecords; n++ {
		times := c.Applied[eventOf(n)]
		likes[fmt.Sprintf("k%d", n%3)] += times
		switch times {
		case 0:
			unapplied = append(unapplied, results.MessageID(int64(n)))
		case 1:
		case 2:
			twice = append(twice, results.MessageID(int64(n)))
		default:
			t.Errorf("%s applied %d times", results.MessageID(int64(n)), times)
		}
	}
	if len(c.Applied) != memberRecords-len(unapplied) {
		t.Errorf("applied holds %d events, want %d: %v", len(c.Applied), memberRecords-len(unapplied), c.Applied)
	}
	if !reflect.DeepEqual(likes, c.Likes) {
		t.Errorf("like_count %v, want %v (the applied counts by key)", c.Likes, likes)
	}
	redelivered := intersect(m1.ids(results.EventDeliver), m2.ids(results.EventDeliver))
	skipped := m2.ids(results.EventSkip)
	t.Logf("unapplied %v, applied twice %v, redelivered %v, skipped %v, event_handled %d",
		unapplied, twice, redelivered, skipped, len(c.Handled))
	for _, check := range []struct {
		what      string
		got, want []string
	}{{"unapplied", unapplied, tc.unapplied}, {"applied twice", twice, tc.twice},
		{"redelivered", redelivered, tc.redelivered}, {"skipped", skipped, tc.skipped}} {
		if !slices.Equal(check.got, check.want) {
			t.Errorf("%s: %v, want %v", check.what, check.got, check.want)
		}
	}
	if wantHandled := memberRecords - len(tc.unapplied); tc.dedup != "none" && len(c.Handled) != wantHandled {
		t.Errorf("event_handled holds %d events, want %d", len(c.Handled), wantHandled)
	}
}

// testMemberStop stops a member with SIGTERM while it has a batch in hand:
// it handles and commits every record it was given, closes, writes
// shutdown_complete and exits 0. Its configuration in force is reported.
func testMemberStop(t *testing.T, d Driver, admin *kafka.Client, seeds []string, handoff bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name := fmt.Sprintf("stop-%v", handoff)
	topic, group := "mr-"+name, "mr-g-"+name
	if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: topic, Partitions: 1, ReplicationFactor: 1}); err != nil {
		t.Fatal(err)
	}
	produceMemberRecords(t, ctx, seeds, topic)
	m := spawnRawMember(t, d, map[string]any{"bootstrap_servers": seeds, "topic": topic, "group": group, "member": 1,
		"commit": "after", "batch": 10, "work_ms": 50, "dedup": "none", "store": filepath.Join(t.TempDir(), "g.db"),
		"handoff": handoff, "properties": map[string]string{"session.timeout.ms": "6000"}})
	config, _ := m.startup["config"].(map[string]any)
	// librdkafka's dump names earliest by its canonical value, smallest.
	for k, want := range map[string]string{"group.id": group, "enable.auto.commit": "false", "auto.offset.reset": "smallest",
		"isolation.level": "read_uncommitted", "enable.auto.offset.store": "true", "session.timeout.ms": "6000"} {
		if config[k] != want {
			t.Errorf("config in force: %s = %v, want %s", k, config[k], want)
		}
	}
	if m.startup["librdkafka_version"] == "" || m.startup["version"] != DefaultLibrdkafka {
		t.Errorf("startup_complete %v, want confluent-kafka %s and its librdkafka", m.startup, DefaultLibrdkafka)
	}
	m.read(t, 30*time.Second, func() bool { return len(m.ids(results.EventEffect)) >= 3 })
	if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	m.read(t, 30*time.Second, func() bool { return false })
	if ws := m.wait(t); !ws.Exited() || ws.ExitStatus() != 0 || !slices.Equal(m.names, []string{`{"name":"shutdown_complete"}`}) {
		t.Errorf("after SIGTERM: %v, lines %v; want exit 0 after shutdown_complete", ws, m.names)
	}
	delivered, effects := m.ids(results.EventDeliver), m.ids(results.EventEffect)
	committed, err := admin.Committed(ctx, group, topic)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SIGTERM after 3 effects: %d delivered, %d handled, commits %v, the group's offset %d",
		len(delivered), len(effects), m.commits(), committed[0])
	if len(delivered) < 10 || !slices.Equal(delivered, effects) || committed[0] != int64(len(delivered)) ||
		m.commits()[len(m.commits())-1] != committed[0] {
		t.Errorf("delivered %v, handled %v, committed %d; want every delivered record handled and committed", delivered, effects, committed[0])
	}
}

// produceMemberRecords writes m-001 … m-030 with franz-go: keys k0-k2,
// the event-id header on the odd ones, a filler after the id.
func produceMemberRecords(t *testing.T, ctx context.Context, seeds []string, topic string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for n := 1; n <= memberRecords; n++ {
		r := &kgo.Record{Key: fmt.Appendf(nil, "k%d", n%3), Value: []byte(results.MessageID(int64(n)) + " ....")}
		if n%2 == 1 {
			r.Headers = []kgo.RecordHeader{{Key: kafka.EventHeader, Value: []byte(eventOf(n))}}
		}
		recs = append(recs, r)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// intersect returns the ids in both a and b, in a's order.
func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
