package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"time"
)

// Replay rebuilds a Results from an events.jsonl alone, for a run that
// crashed before writing results.json. The result is Complete only when the
// file ends with an end event saying so. A last line cut mid-way (the crash
// came during a write) is ignored; a bad line anywhere else is an error.
// Unknown event kinds are skipped, so newer files stay readable.
func Replay(path string) (*Results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	r, err := ReplayFrom(f)
	if err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	return r, nil
}

// ReplayFrom is Replay reading from an io.Reader.
func ReplayFrom(in io.Reader) (*Results, error) {
	br := bufio.NewReaderSize(in, 1<<16)
	fold := newFolder()
	var pending error // a bad line, fatal only if another line follows
	for n := 1; ; n++ {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, rerr
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			if pending != nil {
				return nil, pending
			}
			var ev Event
			if err := json.Unmarshal(line, &ev); err != nil {
				pending = fmt.Errorf("line %d: %w", n, err)
			} else if err := fold.apply(ev); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
		}
		if rerr != nil {
			break
		}
	}
	r := fold.results()
	if !fold.ended && r.Error == "" {
		r.Error = "the run stopped before its end: evidence replayed from " + EventsFileName
	}
	return r, nil
}

// folder accumulates events into a Results; Replay and EventWriter share it
// so a replayed file and the writer's own view always agree.
type folder struct {
	r      Results
	schema int // of the start event; 1 is upgraded as it is read
	runs   map[int]*Run
	ended  bool
	last   time.Time
}

func newFolder() *folder {
	return &folder{r: Results{Schema: SchemaVersion, Runs: []Run{}}, runs: map[int]*Run{}}
}

// run returns run n, creating it when an event arrives before its run_start.
func (f *folder) run(n int) *Run {
	if r, ok := f.runs[n]; ok {
		return r
	}
	r := &Run{Number: n, Topics: []Topic{}, Tallies: []Tally{}, Final: []Tally{}, Expectations: []Expectation{},
		Faults: []Fault{}, ISR: []ISRSample{}, Logs: []LogLine{}, Steps: []StepOutput{}}
	f.runs[n] = r
	return r
}

func topicOf(r *Run, name, label string) *Topic {
	for i := range r.Topics {
		if r.Topics[i].Name == name {
			if r.Topics[i].Label == "" {
				r.Topics[i].Label = label
			}
			return &r.Topics[i]
		}
	}
	r.Topics = append(r.Topics, Topic{Name: name, Label: label, Messages: []Message{}})
	return &r.Topics[len(r.Topics)-1]
}

// consumer decodes a consumer group's event into x, whose group name is
// at group, and finds the group, which an earlier consumer event declared.
func (f *folder) consumer(ev Event, dec func(any) error, x any, group *string) (*Consumer, error) {
	if err := dec(x); err != nil {
		return nil, err
	}
	c := consumerOf(f.run(ev.Run), *group)
	if c == nil {
		return nil, fmt.Errorf("%s event for undeclared group %q", ev.Kind, *group)
	}
	return c, nil
}

// consumerOf finds a group of a run by its real name.
func consumerOf(r *Run, group string) *Consumer {
	for i := range r.Consumers {
		if r.Consumers[i].Group == group {
			return &r.Consumers[i]
		}
	}
	return nil
}

func (f *folder) apply(ev Event) error {
	if ev.Time.After(f.last) {
		f.last = ev.Time
	}
	if runScoped[ev.Kind] && ev.Run < 1 {
		return fmt.Errorf("%s event without a run number", ev.Kind)
	}
	dec := func(v any) error {
		if err := json.Unmarshal(ev.Data, v); err != nil {
			return fmt.Errorf("%s event: %w", ev.Kind, err)
		}
		return nil
	}
	switch ev.Kind {
	case KindStart:
		var s StartEvent
		if err := dec(&s); err != nil {
			return err
		}
		if s.Schema != 0 && (s.Schema < 1 || s.Schema > SchemaVersion) {
			return fmt.Errorf("%w %d in start event (this kafkabook reads versions 1 to %d)", ErrSchema, s.Schema, SchemaVersion)
		}
		f.schema = s.Schema
		f.r.Title, f.r.Runbook, f.r.Provenance = s.Title, s.Runbook, s.Provenance
	case KindRunStart:
		var s RunStartEvent
		if err := dec(&s); err != nil {
			return err
		}
		f.run(ev.Run).Start = s.Start
	case KindTopic:
		var t Topic
		if err := dec(&t); err != nil {
			return err
		}
		tp := topicOf(f.run(ev.Run), t.Name, t.Label)
		tp.Messages = append(tp.Messages, t.Messages...)
		if t.Ledger.Len() > 0 {
			if tp.Ledger == nil {
				tp.Ledger = &Ledger{}
			}
			tp.Ledger.AddLedger(t.Ledger)
		}
	case KindMessages:
		var m MessagesEvent
		if err := dec(&m); err != nil {
			return err
		}
		return f.addLedger(ev.Run, m)
	case KindMessage:
		var m MessageEvent
		if err := dec(&m); err != nil {
			return err
		}
		m.Status = upgradeStatus(m.Status)
		tp := topicOf(f.run(ev.Run), m.Topic, m.Label)
		for i := len(tp.Messages) - 1; i >= 0; i-- {
			if tp.Messages[i].ID == m.ID && tp.Messages[i].Status == StatusUnknown {
				tp.Messages[i] = m.Message
				return nil
			}
		}
		tp.Messages = append(tp.Messages, m.Message)
	case KindStep:
		var s StepOutput
		if err := dec(&s); err != nil {
			return err
		}
		r := f.run(ev.Run)
		r.Steps = append(r.Steps, s)
	case KindFault:
		var x Fault
		if err := dec(&x); err != nil {
			return err
		}
		r := f.run(ev.Run)
		r.Faults = append(r.Faults, x)
	case KindISR:
		var x ISRSample
		if err := dec(&x); err != nil {
			return err
		}
		r := f.run(ev.Run)
		r.ISR = append(r.ISR, x)
	case KindLog:
		var x LogLine
		if err := dec(&x); err != nil {
			return err
		}
		r := f.run(ev.Run)
		r.Logs = append(r.Logs, x)
	case KindTally:
		r := f.run(ev.Run)
		var x Tally
		if f.schema == 1 {
			var old v1Tally
			if err := dec(&old); err != nil {
				return err
			}
			x = old.upgrade(r)
		} else if err := dec(&x); err != nil {
			return err
		}
		if x.Final {
			r.Final = append(r.Final, x)
		} else {
			r.Tallies = append(r.Tallies, x)
		}
	case KindExpect:
		var x Expectation
		if err := dec(&x); err != nil {
			return err
		}
		r := f.run(ev.Run)
		r.Expectations = append(r.Expectations, x)
	case KindConsumer:
		var x Consumer
		if err := dec(&x); err != nil {
			return err
		}
		r := f.run(ev.Run)
		if c := consumerOf(r, x.Group); c != nil {
			*c = x
		} else {
			r.Consumers = append(r.Consumers, x)
		}
	case KindMember:
		var x MemberEvent
		c, err := f.consumer(ev, dec, &x, &x.Group)
		if err != nil {
			return err
		}
		if i := slices.IndexFunc(c.Members, func(m Member) bool { return m.N == x.N }); i >= 0 {
			c.Members[i] = x.Member
		} else {
			c.Members = append(c.Members, x.Member)
		}
	case KindConsumerEvents:
		var x ConsumerEventsEvent
		c, err := f.consumer(ev, dec, &x, &x.Group)
		if err != nil {
			return err
		}
		c.Events = append(c.Events, x.Events...)
	case KindOffsets:
		var x OffsetsEvent
		c, err := f.consumer(ev, dec, &x, &x.Group)
		if err != nil {
			return err
		}
		c.Offsets = append(c.Offsets, x.Samples...)
	case KindConsumerTally:
		var x ConsumerTallyEvent
		c, err := f.consumer(ev, dec, &x, &x.Group)
		if err != nil {
			return err
		}
		c.Tally = &x.Tally
	case KindTransactions:
		return f.addTransactions(ev.Run, ev.Data)
	case KindRunEnd:
		var x RunEndEvent
		if err := dec(&x); err != nil {
			return err
		}
		r := f.run(ev.Run)
		r.End, r.Complete, r.Error = x.End, x.Complete, x.Error
	case KindEnd:
		var x EndEvent
		if err := dec(&x); err != nil {
			return err
		}
		f.ended = true
		f.r.Complete, f.r.Error, f.r.Provenance.End = x.Complete, x.Error, x.End
	}
	return nil
}

// addLedger appends a batch of ledger entries to a topic of run n.
func (f *folder) addLedger(n int, m MessagesEvent) error {
	tp := topicOf(f.run(n), m.Topic, m.Label)
	if tp.Ledger == nil {
		tp.Ledger = &Ledger{}
	}
	tp.Ledger.AddLedger(m.Ledger)
	return nil
}

// results assembles the runs in number order. Runs that never ended keep
// Complete false and, when the file ended early, get their End from the last
// event seen.
func (f *folder) results() *Results {
	nums := make([]int, 0, len(f.runs))
	for n := range f.runs {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	f.r.Runs = f.r.Runs[:0]
	for _, n := range nums {
		run := *f.runs[n]
		if run.End.IsZero() && !f.ended {
			run.End = f.last
		}
		f.r.Runs = append(f.r.Runs, run)
	}
	if f.r.Provenance.End.IsZero() {
		f.r.Provenance.End = f.last
	}
	return &f.r
}
