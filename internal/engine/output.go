package engine

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/poll"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// console serialises what steps print, so background steps do not
// interleave mid-line with foreground ones.
type console struct {
	mu  sync.Mutex
	w   io.Writer
	red redactor // applied to what steps record
}

// Write writes p whole, so that the console is an io.Writer for
// poll.Printer.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.w.Write(p)
}

func (c *console) printf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.w, format, args...)
}

// stepLog is what one step prints: shown on the console as it happens and
// kept for the report.
type stepLog struct {
	c        *console
	prefix   string        // before each console line; marks background output
	progress poll.Progress // prints a transient waiting line that is not kept
	out      results.StepOutput
	mu       sync.Mutex
}

func newStepLog(c *console, s runbook.Step, block int) *stepLog {
	l := &stepLog{c: c, prefix: "  ", out: results.StepOutput{
		Pos: s.Pos.String(), Block: block, Text: s.Text, Start: time.Now().UTC(),
		Background: s.Background, Output: []string{},
	}}
	if s.Background {
		l.prefix = fmt.Sprintf("  [& line %d] ", s.Pos.Line)
	}
	l.progress = poll.Printer(c, l.prefix)
	return l
}

// line records and prints one line of output.
func (l *stepLog) line(format string, args ...any) {
	s := l.c.red.String(fmt.Sprintf(format, args...))
	l.mu.Lock()
	l.out.Output = append(l.out.Output, s)
	l.mu.Unlock()
	l.c.printf("%s%s\n", l.prefix, s)
}

// done closes the step's record.
func (l *stepLog) done(err error) results.StepOutput {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.out.End = time.Now().UTC()
	if err != nil {
		l.out.Error = l.c.red.String(err.Error())
		l.c.printf("%serror: %s\n", l.prefix, oneLine(err.Error()))
	}
	return l.out
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    ")
}

// showOffsets formats committed offsets by partition: "p0=10 p1=4", or
// "none".
func showOffsets(o map[int32]int64) string {
	if len(o) == 0 {
		return "none"
	}
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(o)) {
		parts = append(parts, fmt.Sprintf("p%d=%d", p, o[p]))
	}
	return strings.Join(parts, " ")
}

// featuresLine is the console's line of a cluster's finalized features,
// transaction.version first.
func featuresLine(fs map[string]int16) string {
	names := slices.Sorted(maps.Keys(fs))
	parts := make([]string, 0, len(names))
	if v, ok := fs[kafka.TransactionVersion]; ok {
		parts = append(parts, fmt.Sprintf("%s=%d", kafka.TransactionVersion, v))
	}
	for _, n := range names {
		if n != kafka.TransactionVersion {
			parts = append(parts, fmt.Sprintf("%s=%d", n, fs[n]))
		}
	}
	return "cluster features: " + strings.Join(parts, " ")
}
