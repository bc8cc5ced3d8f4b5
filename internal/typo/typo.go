// Package typo finds the likely meant name for a misspelt one, for the
// "did you mean" of runbook errors, the command line and the client
// property catalogues: one rule of closeness everywhere a name is checked.
package typo

import "strings"

// Closest returns the candidate closest to word, or "" when nothing is
// close enough to be a likely typo. Case is ignored, and a candidate that
// word begins (three letters at least) counts as one edit away.
func Closest(word string, candidates []string) string {
	best, bestDist := "", -1
	limit := max(2, len(word)/3)
	for _, c := range candidates {
		d := Distance(strings.ToLower(word), strings.ToLower(c))
		if len(word) >= 3 && strings.HasPrefix(c, word) {
			d = min(d, 1)
		}
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	if best == word {
		return ""
	}
	return best
}

// Distance is the Levenshtein distance between a and b, counting an
// adjacent transposition as one edit. Strings over 64 bytes are either
// equal or as far apart as the longer is long: a name that long is no typo,
// and the cost stays bounded on hostile input.
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return max(len(a), len(b))
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
