package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A ledger stores runs of equal values as "v*k", so a few bytes of JSON
// can stand for any number of entries, and each entry takes 41 bytes in
// memory. A decoder therefore allows at most one ledger entry per byte of
// the file, or minLedgerBudget entries in a smaller file: decoding a file
// of N bytes takes at most about 41 times max(N, 1 MiB). Every ledger
// kafkabook writes holds far fewer: the published runs hold at most one
// entry per 16 bytes.
const minLedgerBudget = 1 << 20

// ledgerBudget is the number of ledger entries a file of size bytes may hold.
func ledgerBudget(size int) int64 {
	return max(int64(size), minLedgerBudget)
}

// checkCounts refuses data, a results.json or one line of events.jsonl,
// when the ledger entries its count fields claim, with used counted
// before it, are more than ledgerBudget(size) allows. It reads every
// object key as encoding/json matches it to a field, unescaped and
// without regard to case ("Count" and "\u0063ount" are count too), and
// the number after each count key; a key without escapes costs no
// allocation. Counts of other objects make it stricter, never laxer.
// It returns used plus the entries data claims.
func checkCounts(data []byte, used int64, size int) (int64, error) {
	budget := ledgerBudget(size)
	for p := 0; p < len(data); {
		if data[p] != '"' {
			p++
			continue
		}
		end, escaped := stringEnd(data, p)
		q := skipSpace(data, end)
		if q >= len(data) || data[q] != ':' || !isCountKey(data[p:end], escaped) {
			p = end
			continue
		}
		q = skipSpace(data, q+1)
		end = q
		for end < len(data) && bytes.IndexByte([]byte("+-.0123456789eE"), data[end]) >= 0 {
			end++
		}
		if end == q {
			p = q
			continue
		}
		v, err := strconv.ParseFloat(string(data[q:end]), 64)
		if err != nil || v < 0 || v != math.Trunc(v) {
			return used, fmt.Errorf("ledger field count at byte %d: %q is not a count of entries", q, data[q:end])
		}
		if v > float64(budget-used) {
			return used, fmt.Errorf("ledger field count at byte %d: %s entries (after %d before it) in %d bytes of evidence, more than the %d such a file can hold: the file is damaged or was not written by kafkabook",
				q, data[q:end], used, size, budget)
		}
		used += int64(v)
		p = end
	}
	return used, nil
}

// stringEnd is the index just after the JSON string that starts at the
// quote data[p], or len(data) when it does not end, and whether it holds
// an escape.
func stringEnd(data []byte, p int) (int, bool) {
	escaped := false
	for i := p + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i + 1, escaped
		}
	}
	return len(data), escaped
}

// isCountKey says whether the quoted key raw names the field count as
// encoding/json matches names: unescaped, in any case.
func isCountKey(raw []byte, escaped bool) bool {
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return false
	}
	if !escaped {
		return bytes.EqualFold(raw[1:len(raw)-1], []byte("count"))
	}
	var key string
	if json.Unmarshal(raw, &key) != nil {
		return false
	}
	return strings.EqualFold(key, "count")
}

func skipSpace(data []byte, p int) int {
	for p < len(data) && (data[p] == ' ' || data[p] == '\t' || data[p] == '\n' || data[p] == '\r') {
		p++
	}
	return p
}
