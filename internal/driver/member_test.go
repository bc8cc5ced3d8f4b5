package driver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/results"
)

// TestMemberSpecLine checks the spec line a member driver reads: the role,
// durations in milliseconds, the fields by the protocol's names.
func TestMemberSpecLine(t *testing.T) {
	b, err := MemberSpec{Client: "java", Bootstrap: []string{"a:1"}, Topic: "t", Group: "g", Member: 2, Commit: "auto",
		AutoCommit: 200 * time.Millisecond, Batch: 10, Work: 1500 * time.Millisecond, Dedup: "table", CrashAt: 4,
		CrashPoint: "work", Store: "/s.db", Handoff: true, AckMode: "manual", Properties: map[string]string{"x.y": "1"}}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"role": "member", "client": "java", "auto_commit_ms": 200.0, "work_ms": 1500.0, "batch": 10.0,
		"crash_at": 4.0, "crash_point": "work", "handoff": true, "ack_mode": "manual", "member": 2.0, "store": "/s.db"} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v (line %s)", k, m[k], want, b)
		}
	}
}

// TestMemberEvents: a member's events come through Next in order, its
// shutdown_complete is noted, a line that is no event goes to its stderr
// tail, and SIGTERM stops it.
func TestMemberEvents(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "spec")
	// The trap first: the test sends SIGTERM as soon as it has read the
	// events.
	d := fake(`trap 'echo "{\"name\":\"shutdown_complete\"}"; exit 0' TERM
read spec; echo "$spec" > ` + spec + `; ` + startupLine + `
echo '{"at":"2026-12-01T16:40:00.123456Z","member":1,"kind":"deliver","partition":0,"offset":41,"id":"m-042"}'
echo 'garbage'
echo '{"at":"2026-12-01T16:40:00.175012Z","member":1,"kind":"commit","partition":0,"offset":42}'
while :; do sleep 0.05; done`)
	m, err := d.StartMember(context.Background(), MemberSpec{Topic: "t", Group: "g", Member: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var got []results.ConsumerEvent
	for len(got) < 2 {
		ev, err := m.Next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	if got[0].Kind != results.EventDeliver || got[0].Offset != 41 || got[0].ID != "m-042" || got[1].Kind != results.EventCommit || got[1].Offset != 42 {
		t.Errorf("events %+v", got)
	}
	if !strings.Contains(m.StderrTail(), "unreadable report: garbage") {
		t.Errorf("stderr tail %q lacks the unreadable line", m.StderrTail())
	}
	line, _ := os.ReadFile(spec)
	if !strings.Contains(string(line), `"role":"member"`) || !strings.Contains(string(line), `"client":"fake"`) {
		t.Errorf("spec line %s", line)
	}
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after the stop: %v, want EOF", err)
	}
	state, err := m.Wait()
	if err != nil || state != (launch.Exit{}) || !m.ShutDown() {
		t.Errorf("stopped member: %v %v, shutdown %v", state, err, m.ShutDown())
	}
}

// TestMemberKill: Kill ends the member's whole process group.
func TestMemberKill(t *testing.T) {
	d := fake(`read spec; ` + startupLine + `; sleep 60 & wait`)
	m, err := d.StartMember(context.Background(), MemberSpec{Topic: "t", Group: "g"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Kill()
	state, _ := m.Wait()
	if state.Signal != syscall.SIGKILL {
		t.Errorf("member ended %v, want SIGKILL", state)
	}
	// The killed child (sleep) is reparented and reaped by init: give it
	// a moment to go.
	err = syscall.Kill(-m.Pid(), 0)
	for deadline := time.Now().Add(2 * time.Second); err == nil && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		err = syscall.Kill(-m.Pid(), 0)
	}
	if !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the member's process group is still there: %v", err)
	}
}
