package local

// SkipForwardRule makes Up add no FORWARD rule, for tests of the
// reachability check.
func SkipForwardRule(skip bool) { skipForwardRule = skip }

// The namespace helpers, for the test of /run/netns beside iproute2.
var (
	NewNamedNS = newNamedNS
	DeleteNS   = deleteNS
	NSPath     = nsPath
)

// SkipPrepareNSDir makes newNamedNS leave /run/netns as it finds it, as
// kafkabook did before it prepared the directory: for the test of the
// namespaces such a kafkabook left hidden.
func SkipPrepareNSDir(skip bool) { skipPrepareNSDir = skip }
