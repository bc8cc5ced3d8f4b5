package engine

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/kafka"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// readTimeout bounds reading a topic to its high watermark.
const readTimeout = 60 * time.Second

// read: read TOPIC [--via NODE]
//
//	high watermark=10, read 10 messages (m-001 .. m-010)
//	acked 20, missing 10: m-011 ... m-020
func read(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	label := s.Args[0].Text
	seeds, via, err := r.seeds(ctx, s)
	if err != nil {
		return err
	}
	recs, hw, err := kafka.ReadAll(ctx, seeds, r.realName(label), readTimeout)
	if err != nil {
		return err
	}
	tally := results.Classify(r.ledger(label), recs, hw, nil, false)
	tally.At, tally.Via, tally.Pos = time.Now().UTC(), via, s.Pos.String()
	r.mu.Lock()
	r.tallies[label] = tally
	r.mu.Unlock()
	r.ev.Emit(results.KindTally, r.num, tally)

	var hws []string
	for p := int32(0); int(p) < len(hw); p++ {
		hws = append(hws, fmt.Sprint(hw[p]))
	}
	line := fmt.Sprintf("high watermark=%s, read %d messages", strings.Join(hws, ","), len(recs))
	if len(recs) > 0 {
		line += fmt.Sprintf(" (%s .. %s)", recs[0].ID, recs[len(recs)-1].ID)
	}
	log.line("%s", line)
	log.line("acked %d, missing %d%s", tally.Acked, len(tally.Lost), idList(tally.LostIDs()))
	return nil
}

// idList shows ids compactly: ": m-011 m-012 ... m-020".
func idList(ids []string) string {
	switch {
	case len(ids) == 0:
		return ""
	case len(ids) <= 4:
		return ": " + strings.Join(ids, " ")
	}
	return fmt.Sprintf(": %s %s ... %s", ids[0], ids[1], ids[len(ids)-1])
}

// logs: logs NODE [--grep REGEX] — the node's broker log lines since the
// run began.
func logs(ctx context.Context, r *runner, s runbook.Step, log *stepLog) error {
	nodes, err := r.nodes(ctx, s.Args[0].Target())
	if err != nil {
		return err
	}
	var re *regexp.Regexp
	if g := s.String("grep", ""); g != "" {
		re = regexp.MustCompile(g) // checked by runbook.Load
	}
	for _, n := range nodes {
		lines, err := r.nodeLines(ctx, n, r.start, re)
		if err != nil {
			return err
		}
		for _, l := range lines {
			log.line("%s: %s", n, l.Text)
		}
		if len(lines) == 0 {
			log.line("%s: no matching lines since the run began", n)
		}
	}
	return nil
}
