package engine

// Freezing client processes (runbook/freeze.go): pause consumer G and
// pause producer T stop a member's or a producer driver's process group
// with SIGSTOP, resume consumer G and resume producer T continue it. A
// frozen member no longer counts as the group's running one, so start
// consumer G can start its successor: the zombie case of
// consume-transform-produce.

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/runbook"
)

var _ = handles(pauseConsumer, runbook.OpPauseConsumer)

// pauseConsumer: pause consumer G — SIGSTOP of the running member.
func pauseConsumer(ctx context.Context, w *workload, s runbook.Step, a runbook.PauseConsumer, log *stepLog) error {
	g, err := w.group(a.Group)
	if err != nil {
		return err
	}
	g.mu.Lock()
	m := g.running()
	g.mu.Unlock()
	if m == nil {
		return fmt.Errorf("group %s has no running member to pause", g.label)
	}
	if err := m.signal(syscall.SIGSTOP); err != nil {
		return fmt.Errorf("pausing member %d of group %s: %w", m.n, g.label, err)
	}
	g.mu.Lock()
	m.paused = true
	g.mu.Unlock()
	log.line("froze member %d (pid %d) with SIGSTOP: its process is stopped (state T); start consumer %s starts a successor beside it", m.n, m.pid, g.label)
	return nil
}

var _ = handles(resumeConsumer, runbook.OpResumeConsumer)

// resumeConsumer: resume consumer G — SIGCONT of the newest frozen member.
func resumeConsumer(ctx context.Context, w *workload, s runbook.Step, a runbook.ResumeConsumer, log *stepLog) error {
	g, err := w.group(a.Group)
	if err != nil {
		return err
	}
	g.mu.Lock()
	m := g.frozen()
	g.mu.Unlock()
	if m == nil {
		return fmt.Errorf("group %s has no frozen member to resume (pause consumer %s freezes one)", g.label, g.label)
	}
	if err := m.signal(syscall.SIGCONT); err != nil {
		return fmt.Errorf("resuming member %d of group %s: %w", m.n, g.label, err)
	}
	g.mu.Lock()
	m.paused = false
	running := g.running()
	g.mu.Unlock()
	note := ""
	if running != nil && running != m {
		note = fmt.Sprintf(", beside member %d", running.n)
	}
	log.line("resumed member %d (pid %d) with SIGCONT%s", m.n, m.pid, note)
	return nil
}

// frozen is the newest member frozen by pause consumer whose process
// still exists, or nil. g.mu is held.
func (g *group) frozen() *member {
	for i := len(g.members) - 1; i >= 0; i-- {
		m := g.members[i]
		select {
		case <-m.done:
		default:
			if m.paused {
				return m
			}
		}
	}
	return nil
}

// stopFrozen stops every member still frozen at the end of the run: it
// goes on (SIGCONT), then stops as the running member does.
func (w *workload) stopFrozen(g *group, why string, kill bool) error {
	var errs []error
	for {
		g.mu.Lock()
		m := g.frozen()
		if m != nil {
			m.killed, m.paused = why, false
		}
		g.mu.Unlock()
		if m == nil {
			return errors.Join(errs...)
		}
		if err := m.signal(syscall.SIGCONT); err != nil {
			errs = append(errs, err)
		}
		sig := syscall.SIGTERM
		if kill {
			sig = syscall.SIGKILL
		}
		m.signal(sig)
		select {
		case <-m.done:
			continue
		case <-time.After(memberStopWait(g.spec)):
		}
		m.signal(syscall.SIGKILL)
		<-m.done
		errs = append(errs, fmt.Errorf("member %d (pid %d) of group %s did not stop within %s of SIGTERM: killed", m.n, m.pid, g.label, memberStopWait(g.spec)))
	}
}

// driving records the driver process producing to t (nil: none now).
func (t *topicState) driving(p *driver.Producer) {
	t.mu.Lock()
	t.producer = p
	t.mu.Unlock()
}

// producerOf is the driver process producing to the step's topic now.
func (w *workload) producerOf(label string) (*driver.Producer, error) {
	t := w.topic(label)
	t.mu.Lock()
	p := t.producer
	t.mu.Unlock()
	if p == nil {
		return nil, fmt.Errorf("no client process produces to %s now: pause producer freezes the process of a background produce %s ... & still running", label, label)
	}
	return p, nil
}

var _ = handles(pauseProducer, runbook.OpPauseProducer)

// pauseProducer: pause producer T — SIGSTOP of the driver producing to T.
func pauseProducer(ctx context.Context, w *workload, s runbook.Step, a runbook.PauseProducer, log *stepLog) error {
	p, err := w.producerOf(a.Topic)
	if err != nil {
		return err
	}
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		return fmt.Errorf("pausing the producer of %s: %w", a.Topic, err)
	}
	log.line("froze the producer of %s (driver pid %d) with SIGSTOP: its process is stopped (state T)", a.Topic, p.Pid())
	return nil
}

var _ = handles(resumeProducer, runbook.OpResumeProducer)

// resumeProducer: resume producer T — SIGCONT of the driver producing to T.
func resumeProducer(ctx context.Context, w *workload, s runbook.Step, a runbook.ResumeProducer, log *stepLog) error {
	p, err := w.producerOf(a.Topic)
	if err != nil {
		return err
	}
	if err := p.Signal(syscall.SIGCONT); err != nil {
		return fmt.Errorf("resuming the producer of %s: %w", a.Topic, err)
	}
	log.line("resumed the producer of %s (driver pid %d) with SIGCONT", a.Topic, p.Pid())
	return nil
}
