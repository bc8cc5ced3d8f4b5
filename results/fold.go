package results

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"
)

// folder accumulates events into a Results; Replay and EventWriter share it
// so a replayed file and the writer's own view always agree.
type folder struct {
	r      Results
	schema int // of the start event; 1 is upgraded as it is read
	runs   map[int]*Run
	ended  bool
	last   time.Time

	// The timelines of each run, folded into change points as samples
	// arrive (see timeline), and the cadences the samplers declared.
	isr     map[int]*timeline[ISRSample, isrKey]
	offsets map[int]map[string]*timeline[OffsetSample, int32]
	cadence map[int]SamplingEvent

	// dropReads leaves read events out of the fold (an EventWriter's:
	// the records are the engine's already, and a large read would be
	// held twice).
	dropReads bool
}

func newFolder() *folder {
	return &folder{r: Results{Schema: SchemaVersion, Runs: []Run{}}, runs: map[int]*Run{},
		isr: map[int]*timeline[ISRSample, isrKey]{}, offsets: map[int]map[string]*timeline[OffsetSample, int32]{},
		cadence: map[int]SamplingEvent{}}
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

// apply folds one event; unknown kinds are skipped.
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
	case KindStart, KindRunStart, KindRunEnd, KindEnd:
		return f.applyFrame(ev, dec)
	case KindTopic, KindMessages, KindMessage:
		return f.applyLedger(ev, dec)
	case KindConsumer, KindMember, KindConsumerEvents, KindOffsets, KindConsumerTally, KindGroupInput:
		return f.applyConsumer(ev, dec)
	case KindStep, KindFault, KindISR, KindSampling, KindLog, KindTally, KindExpect:
		return f.applyRecord(ev, dec)
	case KindTransactions:
		return f.addTransactions(ev.Run, ev.Data)
	case KindRead:
		if f.dropReads {
			return nil
		}
		var x ReadEvent
		if err := dec(&x); err != nil {
			return err
		}
		r := f.run(ev.Run)
		r.Reads = append(r.Reads, x)
	case KindClient:
		var c ClientInfo
		if err := dec(&c); err != nil {
			return err
		}
		f.r.Provenance.AddClient(c)
	case KindFeatures:
		var x FeaturesEvent
		if err := dec(&x); err != nil {
			return err
		}
		f.r.Provenance.Features = x.Finalized
	}
	return nil
}

// applyFrame folds an event of the structure of the file: its start and end, and each run's.
func (f *folder) applyFrame(ev Event, dec func(any) error) error {
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

// applyLedger folds an event of a produce ledger's entries.
func (f *folder) applyLedger(ev Event, dec func(any) error) error {
	switch ev.Kind {
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
	}
	return nil
}

// applyConsumer folds an event of a consumer group's.
func (f *folder) applyConsumer(ev Event, dec func(any) error) error {
	switch ev.Kind {
	case KindConsumer:
		var x Consumer
		if err := dec(&x); err != nil {
			return err
		}
		r := f.run(ev.Run)
		samples := x.Offsets
		x.Offsets = []OffsetSample{}
		if c := consumerOf(r, x.Group); c != nil {
			*c = x
		} else {
			r.Consumers = append(r.Consumers, x)
		}
		f.addOffsets(ev.Run, x.Group, samples)
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
		if _, err := f.consumer(ev, dec, &x, &x.Group); err != nil {
			return err
		}
		f.addOffsets(ev.Run, x.Group, x.Samples)
	case KindConsumerTally:
		var x ConsumerTallyEvent
		c, err := f.consumer(ev, dec, &x, &x.Group)
		if err != nil {
			return err
		}
		c.Tally = &x.Tally
	case KindGroupInput:
		if f.dropReads {
			return nil
		}
		var x GroupInput
		c, err := f.consumer(ev, dec, &x, &x.Group)
		if err != nil {
			return err
		}
		c.Input = &x
	}
	return nil
}

// applyRecord folds an event of what a run recorded besides ledgers and groups.
func (f *folder) applyRecord(ev Event, dec func(any) error) error {
	switch ev.Kind {
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
		f.run(ev.Run)
		tl := f.isr[ev.Run]
		if tl == nil {
			tl = newISRTimeline()
			f.isr[ev.Run] = tl
		}
		tl.add(x)
	case KindSampling:
		var x SamplingEvent
		if err := dec(&x); err != nil {
			return err
		}
		f.run(ev.Run)
		f.cadence[ev.Run] = x
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

// addOffsets folds committed-offset samples of a group of run n.
func (f *folder) addOffsets(n int, group string, samples []OffsetSample) {
	if len(samples) == 0 {
		return
	}
	groups := f.offsets[n]
	if groups == nil {
		groups = map[string]*timeline[OffsetSample, int32]{}
		f.offsets[n] = groups
	}
	tl := groups[group]
	if tl == nil {
		tl = newOffsetTimeline()
		groups[group] = tl
	}
	for _, s := range samples {
		tl.add(s)
	}
}

// timelines sets the change points of run n's timelines and their
// sampling on run, a copy of the run that the folder goes on filling.
func (f *folder) timelines(n int, run *Run) {
	cad := f.cadence[n]
	if tl := f.isr[n]; tl != nil {
		run.ISR, run.ISRSampling = tl.result(time.Duration(cad.ISREveryMS)*time.Millisecond, true)
	}
	if groups := f.offsets[n]; groups != nil {
		run.Consumers = slices.Clone(run.Consumers)
		for i := range run.Consumers {
			c := &run.Consumers[i]
			if tl := groups[c.Group]; tl != nil {
				c.Offsets, c.OffsetSampling = tl.result(time.Duration(cad.OffsetsEveryMS)*time.Millisecond, false)
			}
		}
	}
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
		f.timelines(n, &run)
		f.r.Runs = append(f.r.Runs, run)
	}
	if f.r.Provenance.End.IsZero() {
		f.r.Provenance.End = f.last
	}
	return &f.r
}
