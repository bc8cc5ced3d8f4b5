package runbook

// Capabilities is what the machine that will run a runbook can do, as the
// caller found it out: runbook checks a document against it and never
// probes the machine itself (cmd/kafkabook does, with internal/powerfs).
// The zero value lacks nothing, which is what a tool laying out a runbook
// that has already run wants.
type Capabilities struct {
	// PowerLossMissing is what the machine lacks for the power-loss layer
	// (root, the FUSE device, fusermount3), worded by the probe; "" when
	// it has all of it.
	PowerLossMissing string
}
