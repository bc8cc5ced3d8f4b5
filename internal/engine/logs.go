package engine

import (
	"bufio"
	"context"
	"io"
	"regexp"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// notable picks the broker log lines that explain what replication did:
// ISR changes, fencing, truncation, elections, controlled shutdowns; the
// release a node started on, in its own words ("Kafka version: 4.3.1");
// a dynamic quorum's voter set as each node learns it, and a leader's
// resignation when it is removed from it; the controller's completion of
// a reassignment, with the leadership change it makes; each block of
// producer ids the controller hands a broker (the first idempotent
// producer waits for one); the transaction coordinator's abort of a
// transaction past its timeout; and what retention by time does: the
// segments it deletes, the log start offset that moves (a clock stepped
// forward deletes acknowledged records so), and the segments it cannot
// delete for records stamped in its future (a clock stepped back); a
// quorum leader that resigns because too few voters fetched in time, and
// a group member removed when its session expired: the timers a clock
// jump may or may not reach (examples/clock-timers.md).
var notable = regexp.MustCompile(`rollback of ongoing transaction .* due to timeout|Shrinking ISR|Expanding ISR|ISR updated|[Ff]encing broker|been unfenced|Truncating|[Tt]runcated|Elected|becoming leader|leader epoch|Controller \d+ became|Completed transition to Leader|Did not receive fetch request from the majority|fenced from the group because|removed after session timeout|Becoming the active controller|Stepping down|Setting new leader for topicId|Transitioning from|Kafka version: |[Cc]ontrolled shutdown|Latest set of voters|not in the committed voter set|Replaying ProducerIdsRecord|Error while (appending records|writing to)|Corruption found in segment|Found invalid messages|CorruptRecordException|Recovering unflushed segment|Stopping serving (logs|replicas) in dir|log dirs? .*(have|has) failed|completed the ongoing partition reassignment|due to (local )?log retention time \d+ms breach|Incremented log start offset to \d+ due to SegmentDeletion|contains future timestamp|\] (ERROR|FATAL) \[`)

// logTime reads the UTC timestamp kafkabook's log4j2 layout puts first:
// [2026-11-29T21:40:57.945Z].
func logTime(line string) (time.Time, bool) {
	if len(line) < 26 || line[0] != '[' {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02T15:04:05.000Z", line[1:25])
	return t, err == nil
}

// nodeLines returns a node's log lines from since on that match re.
func (o *observation) nodeLines(ctx context.Context, node string, since time.Time, re *regexp.Regexp) ([]results.LogLine, error) {
	rc, err := o.opts.Backend.Logs(ctx, node)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	lines, err := scanLog(rc, node, since, re)
	for i := range lines {
		lines[i].Text = o.con.red.String(lines[i].Text)
	}
	return lines, err
}

func scanLog(rd io.Reader, node string, since time.Time, re *regexp.Regexp) ([]results.LogLine, error) {
	var out []results.LogLine
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		at, ok := logTime(line)
		if !ok || at.Before(since) || (re != nil && !re.MatchString(line)) {
			continue
		}
		out = append(out, results.LogLine{At: at, Node: node, Text: line})
	}
	return out, sc.Err()
}

// collectLogs records every node's notable lines of this run, those of
// the brokers it removed too.
func (o *observation) collectLogs(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	var names []string
	for _, n := range o.status.Nodes {
		names = append(names, n.Name)
	}
	for _, name := range append(names, o.removed...) {
		lines, err := o.nodeLines(ctx, name, o.start, notable)
		if err != nil {
			continue
		}
		for _, l := range lines {
			o.ev.Emit(results.KindLog, o.num, l)
		}
	}
}
