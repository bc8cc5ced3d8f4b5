package runbook

import "strings"

// suggest returns the candidate closest to word, for "did you mean"
// messages, or "" when nothing is close enough to be a likely typo.
func suggest(word string, candidates []string) string {
	best, bestDist := "", -1
	limit := max(2, len(word)/3)
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
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

// didYouMean formats a suggestion as ` (did you mean "x"?)`, or "".
func didYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return ` (did you mean "` + s + `"?)`
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, counting an
// adjacent transposition as one edit.
func editDistance(a, b string) int {
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

// Suggest returns the candidate closest to word, or "" when none is close
// enough to be a likely typo: the same rule as the parser's "did you
// mean", for the command line's (kafkabook help prodce).
func Suggest(word string, candidates []string) string { return suggest(word, candidates) }
