package results

import (
	"fmt"
	"strings"
)

// ParseIDSet reads a set of ids as expectations write it: {m-004..m-010},
// {m-001, m-003}, {liked-2} or {}. A range a..b spans message ids
// (MessageID) from a's number to b's. The ids come back sorted (SortIDs),
// each once.
func ParseIDSet(s string) ([]string, error) {
	inner, opened := strings.CutPrefix(s, "{")
	inner, closed := strings.CutSuffix(inner, "}")
	if !opened || !closed {
		return nil, fmt.Errorf("a set of ids is written in braces, like {m-004..m-010} or {m-001, m-003}")
	}
	seen := map[string]bool{}
	out := []string{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, item := range strings.Split(inner, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			if strings.TrimSpace(inner) == "" {
				break
			}
			return nil, fmt.Errorf("empty item in %s", s)
		}
		from, to, isRange := strings.Cut(item, "..")
		if !isRange {
			if strings.ContainsAny(item, "{} ") {
				return nil, fmt.Errorf("bad id %q", item)
			}
			add(item)
			continue
		}
		a, okA := ParseMessageID([]byte(from))
		b, okB := ParseMessageID([]byte(to))
		switch {
		case !okA || !okB:
			return nil, fmt.Errorf("bad range %q: a range spans message ids, like m-004..m-010", item)
		case b < a:
			return nil, fmt.Errorf("bad range %q: it ends before it starts", item)
		case b-a >= 1_000_000:
			return nil, fmt.Errorf("range %q is too long: an expectation lists at most a million ids", item)
		}
		for n := a; n <= b; n++ {
			add(MessageID(n))
		}
	}
	SortIDs(out)
	return out, nil
}

// FormatIDSet writes sorted ids as a set, runs of consecutive message ids
// as ranges: {m-004..m-010, liked-2}. ParseIDSet reads it back.
func FormatIDSet(ids []string) string {
	var parts []string
	for i := 0; i < len(ids); {
		n, ok := ParseMessageID([]byte(ids[i]))
		j := i + 1
		for ok && j < len(ids) {
			m, okM := ParseMessageID([]byte(ids[j]))
			if !okM || m != n+int64(j-i) {
				break
			}
			j++
		}
		switch {
		case j-i >= 3:
			parts = append(parts, ids[i]+".."+ids[j-1])
		default:
			parts = append(parts, ids[i:j]...)
		}
		i = j
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
