package runbook

import (
	"reflect"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// TestActions checks the typed values Load builds for the acks experiment:
// what the engine runs, parsed once, with the registry's defaults.
func TestActions(t *testing.T) {
	d := loadFile(t, "testdata/acks.md", Overrides{})
	var acts []Action
	for _, b := range d.Blocks {
		for _, s := range b.Steps {
			if s.Action == nil {
				t.Fatalf("%s: %s has no Action", s.Pos, s.Text)
			}
			acts = append(acts, s.Action)
		}
	}
	wants := map[int]Action{
		0:  TopicCreate{Topic: "acks1", Partitions: 1, Replicas: [][]int32{{1, 2, 3}}, Config: map[string]string{}},
		1:  Produce{Topic: "acks1", Properties: map[string]string{"acks": "1"}, From: 1, Count: 10},
		3:  Fault{Op: OpIsolate, Targets: []Target{{Node: "k2"}, {Node: "k3"}}},
		7:  WaitLeader{Topic: "acks1", In: []Target{{Node: "k2"}, {Node: "k3"}}, Timeout: 60 * time.Second},
		8:  Read{Topic: "acks1", Via: Target{Node: "k2"}, Isolation: results.ReadUncommitted},
		11: WaitISR{Topic: "acks1", Size: 3, Timeout: 90 * time.Second},
		15: Produce{Topic: "acksall", Properties: map[string]string{"acks": "all", "delivery.timeout.ms": "60000"}, From: 11, Count: 10},
		16: Sleep{For: 5 * time.Second},
		17: Fault{Op: OpKill, Targets: []Target{{Leader: "acksall"}}},
		19: WaitProducers{Timeout: 60 * time.Second},
	}
	for i, want := range wants {
		got := acts[i]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("step %d = %#v\nwant %#v", i, got, want)
		}
	}
	if l := acts[23].(Logs); l.Grep == nil || l.Grep.String() != "Shrinking ISR" || l.Node != (Target{Node: "k1"}) {
		t.Errorf("logs = %+v", l)
	}
	if e := acts[9].(Expect); e.Expr == nil || e.Expr.Func != "lost" {
		t.Errorf("expect = %+v", e)
	}
}

// TestGetterPanicsOnUnknownFlag checks that asking a step for a flag its
// directive lacks is a bug that shows at once, not a silent zero.
func TestGetterPanicsOnUnknownFlag(t *testing.T) {
	d := loadFile(t, "testdata/acks.md", Overrides{})
	s := d.Blocks[1].Steps[1] // produce
	if got := s.flagInt("count"); got != 10 {
		t.Fatalf("--count = %d", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("flagInt(\"cuont\") did not panic")
		}
	}()
	s.flagInt("cuont")
}
