package evidence

import (
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/safetext"
)

// Markdown writes the block as Markdown to paste into a decision record.
func (b Block) Markdown(w io.Writer) error {
	var s strings.Builder
	fmt.Fprintf(&s, "#### Evidence: %s\n\n", mdText(b.Title))
	fmt.Fprintf(&s, "**Verdict:** expectations held in %d of %d runs", b.Held, b.Runs)
	fmt.Fprintf(&s, " (Kafka %s · %s, %s backend, %d nodes", mdText(b.Kafka), mdText(b.ClientLabel()), mdText(b.Backend), b.Nodes)
	if !b.Start.IsZero() {
		fmt.Fprintf(&s, ", run %s", b.Start.Format("2006-01-02"))
	}
	s.WriteString(").")
	if !b.Complete {
		fmt.Fprintf(&s, " **The run did not complete**: %s.", mdText(b.Error))
	}
	s.WriteString("\n\n")
	s.WriteString("| experiment | acked | lost | duplicates | failed | unknown | p99 ack latency | runs |\n")
	s.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, e := range b.Experiments {
		fmt.Fprintf(&s, "| %s | %d | %d | %d | %d | %d | %s | %d |\n",
			mdCode(e.Label, true), e.Acked, e.Lost, e.Duplicates, e.Failed, e.Unknown, Duration(e.P99), e.Runs)
	}
	bounds := false
	for _, e := range b.Experiments {
		if e.RunsLost.N == 0 {
			continue
		}
		if !bounds {
			s.WriteString("\nWhat the final reads bound (exact binomial, Clopper–Pearson; the messages of one run are not independent trials, since one fault loses them together, so the runs' bound is the one to decide on):\n\n")
			bounds = true
		}
		fmt.Fprintf(&s, "- %s: %s; %s.\n", mdCode(e.Label, true), e.RunsLost.Words("runs", "lost any"), e.MessagesLost.Words("acknowledged messages", "lost"))
	}
	if len(b.Groups) > 0 {
		s.WriteString("\n| consumer group | commit | dedup | delivered | applied | applied twice | skipped | unapplied (lost in the consumer) | crashes | runs |\n")
		s.WriteString("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, g := range b.Groups {
			fmt.Fprintf(&s, "| %s | %s | %s | %d | %d | %d | %d | %d | %d | %d |\n",
				mdCode(g.Label, true), mdText(g.Commit), mdText(g.Dedup), g.Delivered, g.Applied, g.AppliedTwice, g.Skipped, g.Unapplied, g.Crashes, g.Runs)
		}
	}
	if len(b.Expectations) > 0 {
		s.WriteString("\n| expectation | held | measured | step |\n| --- | ---: | --- | --- |\n")
		for _, x := range b.Expectations {
			held := fmt.Sprintf("%d of %d", x.Held, x.Runs)
			if x.Decision != "" {
				held = fmt.Sprintf("%s after %d runs", x.Decision, x.Runs)
			}
			fmt.Fprintf(&s, "| %s | %s | %s | %s |\n", mdCode(x.Expr, true), held,
				mdText(strings.Join(compactValues(x.Actual), ", ")), mdText(x.Pos))
		}
	}
	s.WriteString("\n")
	fmt.Fprintf(&s, "- Kafka: %s; client: %s; backend: %s; nodes: %d\n", mdText(b.Kafka), mdText(b.ClientLabel()), mdText(b.Backend), b.Nodes)
	if len(b.OtherClients) > 0 {
		fmt.Fprintf(&s, "- other clients, named by steps: %s\n", mdText(strings.Join(b.OtherClients, "; ")))
	}
	fmt.Fprintf(&s, "- broker overrides: %s\n", sortedPairs(b.Broker, true))
	switch {
	case !b.TopicConfigsRecorded:
		s.WriteString("- topic configs: not in this evidence (no `topic create` step recorded)\n")
	default:
		var parts []string
		for _, label := range slices.Sorted(maps.Keys(b.TopicConfigs)) {
			cfg := b.TopicConfigs[label]
			v := "broker defaults"
			if len(cfg) > 0 {
				v = sortedPairs(cfg, true)
			}
			parts = append(parts, fmt.Sprintf("%s: %s", mdCode(label, false), v))
		}
		fmt.Fprintf(&s, "- topic configs: %s\n", strings.Join(parts, "; "))
	}
	fmt.Fprintf(&s, "- runbook parameters: %s\n", sortedPairs(b.Params, true))
	fmt.Fprintf(&s, "- runbook: %s (%s), sha256 %s\n", mdCode(b.Runbook, false), mdText(b.RunbookPath), mdCode(b.RunbookSHA256, false))
	fmt.Fprintf(&s, "- results.json sha256 %s\n", mdCode(b.ResultsSHA256, false))
	fmt.Fprintf(&s, "- made by kafkabook %s (commit %s)\n", mdText(b.Tool), mdText(b.Commit))
	fmt.Fprintf(&s, "- report: [%s](%s)\n", mdText(b.Report), mdLink(b.Report))
	_, err := io.WriteString(w, s.String())
	return err
}

// compactValues shows a list of per-run values; equal values once with a
// count ("10 ×4").
func compactValues(vs []string) []string {
	var out []string
	for i := 0; i < len(vs); {
		j := i
		for j < len(vs) && vs[j] == vs[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, fmt.Sprintf("%s ×%d", vs[i], j-i))
		} else {
			out = append(out, vs[i])
		}
		i = j
	}
	return out
}

// mdEscaper escapes every character that Markdown (CommonMark with GFM
// tables) would read as syntax in inline text or a table cell; a
// backslash first, so a value cannot un-escape what follows it.
var mdEscaper = strings.NewReplacer(
	"\\", `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;", "&", "&amp;", "[", `\[`, "]", `\]`, "(", `\(`, ")", `\)`,
	"`", "\\`", "*", `\*`, "_", `\_`, "~", `\~`, "#", `\#`, "!", `\!`)

// mdText escapes s as inline text (also in a table cell): Markdown syntax
// is escaped, line breaks and other control characters become spaces.
func mdText(s string) string {
	return mdEscaper.Replace(oneLine(s))
}

// oneLine replaces control characters, line breaks among them, with
// spaces, and shows bidi controls (safetext.Line): a value never starts
// a new block or table row, nor reads other than it is stored.
func oneLine(s string) string { return safetext.Line(s) }

// mdCode writes s as an inline code span that s cannot close: the span's
// backtick fence is longer than any run of backticks in s, and a space
// pads s when it starts or ends with a backtick or a space (CommonMark
// strips one on each side). In a table cell (cell true) a pipe is escaped
// as GFM requires even inside code. An empty s is shown as "(empty)".
func mdCode(s string, cell bool) string {
	s = oneLine(s)
	if s == "" {
		return "(empty)"
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if cell {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	fence := strings.Repeat("`", longest+1)
	return fence + s + fence
}

// mdLink makes a path safe as a Markdown link target: each segment
// percent-encoded (url.PathEscape), so no character of it, a line break
// or a bracket among them, ends the target or the line.
func mdLink(s string) string {
	segs := strings.Split(s, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return strings.Join(segs, "/")
}

// sortedPairs formats a map as k=v pairs in key order, or "none": each a
// Markdown code span (mdCode) when quote is set, else as they are.
func sortedPairs(m map[string]string, quote bool) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		p := k + "=" + m[k]
		if quote {
			p = mdCode(k+"="+m[k], false)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}
