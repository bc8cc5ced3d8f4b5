// Package explain says why a run lost, duplicated or refused messages,
// from the cluster's own records: the brokers' log lines, the fault
// record and the sampled leader and ISR. Every statement carries the lines
// it rests on; where the records do not show a cause, the finding says so
// (NotVisible) rather than guess. The results package proves that a
// message was lost; this package is the chain of events behind it.
package explain

import (
	"fmt"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// NotVisible is the cause of a finding whose records do not show one.
const NotVisible = "cause not visible in the evidence"

// What a finding is about.
const (
	FindingLost      = "lost"      // acknowledged, then gone (results.Loss)
	FindingDuplicate = "duplicate" // found at more than one offset
	FindingRefused   = "refused"   // failed with NOT_ENOUGH_REPLICAS
	FindingUnapplied = "unapplied" // below a consumer group's commit, never applied
)

// Finding is one lost range, duplicate group, run of refusals or set of
// unapplied records, and its explanation.
type Finding struct {
	Kind      string
	Topic     string // the topic's label
	Partition int32
	Range     string // "m-011..m-020 (offsets 10..19)"
	Count     int
	Cause     string // one sentence; NotVisible when the records show none
	Short     string // the cause in a few words, for an index: the election and the faults before it
	Visible   bool   // Cause names a cause the records show
	Steps     []Statement
}

// Statement is one step of an explanation and the log lines it rests on
// (none when it rests on kafkabook's own records: faults, samples, the
// ledger).
type Statement struct {
	Text  string
	Lines []results.LogLine
}

// Explanation is what Run finds in one run.
type Explanation struct {
	Findings []Finding
	// Cause is one line for a site index: the causes of the run's
	// findings, by topic ("plast: last-known-leader election of k1 after
	// power loss of k1"); "" when nothing was lost, duplicated or refused.
	Cause string
	// Short is Cause from the findings' Short causes: "pall:
	// last-known-leader election of k1 (logged as unclean) after power
	// loss of k1, k2, k3".
	Short string
	// Unrecognised are the lines that look relevant (leader, ISR,
	// fencing, truncation) and match no pattern.
	Unrecognised []results.LogLine
}

// Run explains every lost range, duplicate, NOT_ENOUGH_REPLICAS refusal
// and unapplied record of one run.
func Run(run results.Run) Explanation {
	c := newRunCtx(run)
	var fs []Finding
	for _, t := range run.Final {
		fs = append(fs, c.lost(t)...)
		fs = append(fs, c.duplicates(t)...)
	}
	for _, t := range run.Topics {
		fs = append(fs, c.refused(t)...)
	}
	for _, g := range run.Consumers {
		if f, ok := unapplied(c, g); ok {
			fs = append(fs, f)
		}
	}
	for i := range fs {
		if fs[i].Short == "" {
			fs[i].Short = fs[i].Cause
		}
	}
	return Explanation{Findings: fs, Cause: runCause(fs, false), Short: runCause(fs, true), Unrecognised: UnrecognisedLines(c.evs)}
}

// runCause joins the distinct causes of findings (their Short causes when
// short), by topic, in one line.
func runCause(fs []Finding, short bool) string {
	var parts []string
	seen := map[string]bool{}
	for _, f := range fs {
		cause := f.Cause
		if short {
			cause = f.Short
		}
		p := f.Topic + ": " + cause
		if f.Kind != FindingLost {
			p = f.Topic + " " + f.Kind + ": " + cause
		}
		if !seen[p] {
			seen[p] = true
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "; ")
}

// runCtx is one run's records, parsed once.
type runCtx struct {
	run   results.Run
	evs   []Event
	names map[string]string // topic label → real name
	// searched are the nodes whose log since the run began a `logs` step
	// searched for unclean elections, and when: on them, no such line
	// before that moment means none was logged.
	searched map[string]time.Time
}

func newRunCtx(run results.Run) *runCtx {
	c := &runCtx{run: run, evs: Events(run), names: map[string]string{}, searched: map[string]time.Time{}}
	for _, t := range run.Topics {
		c.names[t.Label] = t.Name
	}
	for _, s := range run.Steps {
		if strings.HasPrefix(s.Text, "logs ") && strings.Contains(s.Text, "unclean election") && s.Error == "" {
			if f := strings.Fields(s.Text); len(f) > 1 {
				c.searched[f[1]] = s.Start
			}
		}
	}
	return c
}

// of returns the events of one partition ("pall-r1-8d82-0") of the given
// kinds, in time order.
func (c *runCtx) of(partition string, kinds ...Kind) []Event {
	var out []Event
	for _, e := range c.evs {
		if e.Partition == partition && hasKind(kinds, e.Kind) {
			out = append(out, e)
		}
	}
	return out
}

// ofKind returns the events of the given kinds in [from, to].
func (c *runCtx) ofKind(from, to time.Time, kinds ...Kind) []Event {
	var out []Event
	for _, e := range c.evs {
		if hasKind(kinds, e.Kind) && !e.Line.At.Before(from) && !e.Line.At.After(to) {
			out = append(out, e)
		}
	}
	return out
}

func hasKind(kinds []Kind, k Kind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// at is a time as the report shows it: seconds since the run began.
func (c *runCtx) at(t time.Time) string {
	return fmt.Sprintf("%.3f s", t.Sub(c.run.Start).Seconds())
}

// partitionName is a topic label's partition as the brokers name it.
func (c *runCtx) partitionName(label string, p int32) string {
	name := c.names[label]
	if name == "" {
		name = label
	}
	return name + "-" + itoa(int64(p))
}

func itoa(n int64) string { return fmt.Sprint(n) }

// brokers prints [1,2,3] as "[1,2,3]", the way Kafka's ISR lines do.
func brokers(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = itoa(int64(id))
	}
	return "[" + strings.Join(s, ",") + "]"
}

func contains(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func lines(evs ...Event) []results.LogLine {
	out := make([]results.LogLine, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.Line)
	}
	return out
}
