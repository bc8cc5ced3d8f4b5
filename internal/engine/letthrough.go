package engine

// A consume step's --allow-unknown lets a consumer property through that
// the client's catalogue does not know (the second article's
// value-serializer): the member starts with it unchanged, and what the
// client does with it is recorded in the step's output instead of failing
// the step.

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// reactionWait bounds the wait for the client's own log lines about a
// property let through: Spring's container builds its consumer, which
// logs them, just after the member's startup_complete.
const reactionWait = 10 * time.Second

// reactionLines is the most log lines recorded per property.
const reactionLines = 5

// clientErrorLines is the most lines clientErrors keeps of a member.
const clientErrorLines = 12

// clientErrors are the lines a client logged at ERROR, each with the lines after it that
// are not stack frames or blank (the exception and its causes), the first
// clientErrorLines of them, each cut at 400 bytes.
func clientErrors(lines []string) []string {
	var out []string
	in := false
	for _, l := range lines {
		if len(out) == clientErrorLines {
			break
		}
		switch {
		case errorLineRE.MatchString(l):
			in = true
		case !in || levelLineRE.MatchString(l):
			in = false
			continue
		case strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "at ") || strings.HasPrefix(strings.TrimSpace(l), "..."):
			continue
		}
		if len(l) > 400 {
			l = l[:400] + "…"
		}
		out = append(out, strings.TrimRight(l, " \t\r"))
	}
	return out
}

var (
	// SLF4J simple's "[thread] ERROR logger - message" (kafka-clients) and
	// Commons Logging SimpleLog's "[ERROR] logger - message" (Spring).
	errorLineRE = regexp.MustCompile(`^(\[[^\]]*\] ERROR|\[(ERROR|FATAL)\]) `)
	levelLineRE = regexp.MustCompile(`^(\[[^\]]*\] (TRACE|DEBUG|INFO|WARN|ERROR)|\[(TRACE|DEBUG|INFO|WARN|ERROR|FATAL)\]) `)
)

// splitUnknown splits the properties a client reported as unknown into
// those the step lets through and those it does not.
func splitUnknown(unknown, allowed []string) (letThrough, refused []string) {
	for _, name := range unknown {
		if slices.Contains(allowed, name) {
			letThrough = append(letThrough, name)
		} else {
			refused = append(refused, name)
		}
	}
	return letThrough, refused
}

// clientReaction says what the client did with each property the step let
// through: whether the driver listed it as unknown (unknown_properties of
// its startup_complete), and the lines of the client's own log (the
// driver's stderr) that name it, waited for until every name has one,
// the member exits, or reactionWait passes.
func clientReaction(ctx context.Context, client string, allowed, unknown []string, lines func() []string, exited <-chan struct{}) []string {
	res := make([]*regexp.Regexp, len(allowed))
	for i, name := range allowed {
		res[i] = regexp.MustCompile(`(^|[^A-Za-z0-9._-])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9._-])`)
	}
	found := make([][]string, len(allowed))
	deadline := time.NewTimer(reactionWait)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		for i, re := range res {
			found[i] = found[i][:0]
			for _, l := range lines() {
				if re.MatchString(l) && len(found[i]) < reactionLines {
					found[i] = append(found[i], strings.TrimSpace(l))
				}
			}
		}
		if !slices.ContainsFunc(found, func(f []string) bool { return len(f) == 0 }) {
			break
		}
		select {
		case <-tick.C:
		case <-exited:
			done = true
		case <-deadline.C:
			done = true
		case <-ctx.Done():
			done = true
		}
	}
	var notes []string
	for i, name := range allowed {
		listed := "does not list it among its unknown properties"
		if slices.Contains(unknown, name) {
			listed = "lists it among its unknown properties (unknown_properties)"
		}
		notes = append(notes, fmt.Sprintf("-X %s let through (--allow-unknown): the %s driver %s", name, client, listed))
		if len(found[i]) == 0 {
			notes = append(notes, fmt.Sprintf("client log: no line naming %s within %s", name, reactionWait))
		}
		for _, l := range found[i] {
			notes = append(notes, "client log: "+l)
		}
	}
	return notes
}
