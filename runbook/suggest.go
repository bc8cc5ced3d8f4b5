package runbook

import "github.com/kafkabook/kafkabook/internal/typo"

// suggest returns the candidate closest to word, or "" when none is close
// enough to be a likely typo.
func suggest(word string, candidates []string) string { return typo.Closest(word, candidates) }

// didYouMean formats a suggestion as ` (did you mean "x"?)`, or "".
func didYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return ` (did you mean "` + s + `"?)`
	}
	return ""
}

// Suggest returns the candidate closest to word, or "" when none is close
// enough to be a likely typo: the same rule as the parser's "did you
// mean", for the command line's (kafkabook help prodce).
func Suggest(word string, candidates []string) string { return suggest(word, candidates) }
