package local

// SkipForwardRule makes Up add no FORWARD rule, for tests of the
// reachability check.
func SkipForwardRule(skip bool) { skipForwardRule = skip }
