package driver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/consumer"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/launch"
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

// liveMember is a librdkafka member started as the engine starts one
// (Driver.StartMember), its events read as they come.
type liveMember struct {
	*Member
	evs    chan results.ConsumerEvent // closed once its stdout ends
	events []results.ConsumerEvent    // the events read so far
}

// startMember starts d as a member with spec and reads its events.
func startMember(t *testing.T, d Driver, spec MemberSpec) *liveMember {
	t.Helper()
	m, err := d.StartMember(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	lm := &liveMember{Member: m, evs: make(chan results.ConsumerEvent, 1024)}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("member %d stderr:\n%s", spec.Member, tailLines(m.StderrTail(), 20))
		}
		m.Kill()
		m.Close()
	})
	go func() {
		defer close(lm.evs)
		for {
			ev, err := m.Next()
			if err != nil {
				return
			}
			lm.evs <- ev
		}
	}()
	return lm
}

// read takes events until until says it has what it waits for or the
// member's stdout ends; it fails the test after timeout.
func (m *liveMember) read(t *testing.T, timeout time.Duration, until func() bool) {
	t.Helper()
	deadline := time.After(timeout)
	for !until() {
		select {
		case ev, ok := <-m.evs:
			if !ok {
				return
			}
			m.events = append(m.events, ev)
		case <-deadline:
			t.Fatalf("member: still waiting after %v; events so far: %+v", timeout, m.events)
		}
	}
}

// wait reaps the process and returns how it ended.
func (m *liveMember) wait(t *testing.T) launch.Exit {
	t.Helper()
	exit, _ := m.Wait()
	return exit
}

// ids returns the message ids of the events of kind, in order.
func (m *liveMember) ids(kind string) []string {
	var out []string
	for _, ev := range m.events {
		if ev.Kind == kind {
			out = append(out, ev.ID)
		}
	}
	return out
}

// commits returns the offsets of the commit events, in order.
func (m *liveMember) commits() []int64 {
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

// TestLibrdkafkaMember runs what the consumer conformance table
// (internal/engine, TestConsumerConformance) does not: a start the client
// refuses, the end of stdin, a clean stop with a batch in hand (in the
// loop and handed off), auto-commit with enable.auto.offset.store=false,
// and the event_handled cases. Each crash case is a member started as the
// engine starts one (Driver.StartMember) that crashes on its 7th record,
// the store read directly, the group's committed offset read by
// franz-go's admin client, and a successor that resumes there and stops
// cleanly on SIGTERM.
func TestLibrdkafkaMember(t *testing.T) {
	d := installFor(t, Ref{Client: "librdkafka"})
	t.Run("startup_error", func(t *testing.T) {
		_, err := d.StartMember(context.Background(), MemberSpec{Bootstrap: []string{"127.0.0.1:1"}, Topic: "t", Group: "g",
			Member: 1, Commit: "after", Batch: 1, Store: filepath.Join(t.TempDir(), "g.db"),
			Properties: map[string]string{"bogus.x": "1"}})
		if err == nil || !strings.Contains(err.Error(), "startup_error") || !strings.Contains(err.Error(), "bogus.x") {
			t.Errorf("an unknown property gave %v; want its startup_error naming it", err)
		}
	})
	t.Run("stdin-eof", func(t *testing.T) {
		m := startMember(t, d, MemberSpec{Bootstrap: []string{"127.0.0.1:1"}, Topic: "t", Group: "g",
			Member: 1, Commit: "after", Batch: 1, Store: filepath.Join(t.TempDir(), "g.db")})
		t.Logf("startup_complete after %v", m.Startup().Took)
		m.stdin.Close()
		if ws := m.wait(t); ws.Signal != syscall.SIGKILL {
			t.Errorf("after its stdin closed the member ended with %v, want killed by its own SIGKILL", ws)
		}
	})

	_, st := testcluster.Shared(t, 1, nil)
	admin, err := kafka.Dial(kafka.Plain(st.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, handoff := range []bool{false, true} {
		t.Run(fmt.Sprintf("sigterm-handoff=%v", handoff), func(t *testing.T) { testMemberStop(t, d, admin, st.Bootstrap(), handoff) })
	}
	for _, tc := range []memberCase{
		// enable.auto.offset.store=false and no offsets_store() call: the
		// auto-commit has nothing to commit, the successor reads all ten
		// of the first poll again.
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
	spec := func(member, crashAt, workMs int) MemberSpec {
		return MemberSpec{Bootstrap: seeds, Topic: topic, Group: group, Member: member,
			Commit: tc.commit, AutoCommit: time.Duration(tc.autoMs) * time.Millisecond, Batch: 10,
			Work: time.Duration(workMs) * time.Millisecond, Dedup: tc.dedup,
			CrashAt: crashAt, CrashPoint: tc.point, Store: store, Handoff: tc.handoff, Properties: props}
	}

	// The first member: crashes on its 7th record, killed by its own SIGKILL.
	m1 := startMember(t, d, spec(1, 7, work))
	t.Logf("member 1 startup_complete after %v", m1.Startup().Took)
	if tc.commit == "auto" {
		// librdkafka has auto.commit.interval.ms twice, global and a
		// legacy topic-level one (60000) the group consumer ignores: the
		// configuration in force is the global one, the step's.
		if got, want := m1.Startup().Config["auto.commit.interval.ms"], strconv.Itoa(tc.autoMs); got != want {
			t.Errorf("auto.commit.interval.ms in force %q, want %s (the step's)", got, want)
		}
	}
	m1.read(t, time.Minute, func() bool { return false })
	ws := m1.wait(t)
	if ws.Signal != syscall.SIGKILL {
		t.Errorf("member 1 ended with %v, want killed by SIGKILL", ws)
	}
	if err := syscall.Kill(m1.Pid(), 0); !errors.Is(err, syscall.ESRCH) {
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
	m2 := startMember(t, d, spec(2, 0, 5))
	t.Logf("member 2 startup_complete after %v", m2.Startup().Took)
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
	if err := m2.Stop(); err != nil {
		t.Fatal(err)
	}
	m2.read(t, 30*time.Second, func() bool { return false })
	if ws := m2.wait(t); ws.Signal != 0 || ws.Code != 0 || !m2.ShutDown() {
		t.Errorf("member 2 after SIGTERM: %v, shutdown_complete %v; want exit 0 after shutdown_complete", ws, m2.ShutDown())
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
	m := startMember(t, d, MemberSpec{Bootstrap: seeds, Topic: topic, Group: group, Member: 1,
		Commit: "after", Batch: 10, Work: 50 * time.Millisecond, Dedup: "none", Store: filepath.Join(t.TempDir(), "g.db"),
		Handoff: handoff, Properties: map[string]string{"session.timeout.ms": "6000"}})
	config := m.Startup().Config
	// librdkafka's dump names earliest by its canonical value, smallest.
	for k, want := range map[string]string{"group.id": group, "enable.auto.commit": "false", "auto.offset.reset": "smallest",
		"isolation.level": "read_uncommitted", "enable.auto.offset.store": "true", "session.timeout.ms": "6000"} {
		if config[k] != want {
			t.Errorf("config in force: %s = %v, want %s", k, config[k], want)
		}
	}
	if st := m.Startup(); st.Librdkafka == "" || st.Version != DefaultLibrdkafka {
		t.Errorf("startup_complete %+v, want confluent-kafka %s and its librdkafka", st, DefaultLibrdkafka)
	}
	m.read(t, 30*time.Second, func() bool { return len(m.ids(results.EventEffect)) >= 3 })
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	m.read(t, 30*time.Second, func() bool { return false })
	if ws := m.wait(t); ws.Signal != 0 || ws.Code != 0 || !m.ShutDown() {
		t.Errorf("after SIGTERM: %v, shutdown_complete %v; want exit 0 after shutdown_complete", ws, m.ShutDown())
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
