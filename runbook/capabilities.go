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
	// ClockMissing is what the machine lacks to step a broker's wall
	// clock (root, libfaketime of the release kafkabook's settings are
	// proven on), worded by the probe; "" when it has all of it.
	ClockMissing string
	// ClientProperty checks a client property of the given role
	// (RoleProducer, RoleConsumer) against that client's own catalogue at
	// that version (version "" is the client's default release; java
	// without a version is checked at each Kafka release of the run), and
	// says what is wrong, with a suggestion; nil accepts every name.
	// check calls it for every -X value and every producer: and
	// consumer: entry, for every client the property goes to.
	// cmd/kafkabook passes internal/clientconfig's catalogues.
	ClientProperty func(client, version, role, name, value string) error
	// FaultMissing says why the cluster the runbook will run against
	// cannot apply a step that hurts it (kill, stop, start, pause,
	// resume, isolate, rejoin, restart, roll, partition, heal, loss,
	// powerloss, features upgrade: the directive's name, and "restart
	// --to", "roll --to" for a change of release), "" when it can; nil
	// can apply every one. An external cluster can apply only the faults
	// its cluster file has a command for.
	FaultMissing func(fault string) string
	// NodeNames maps other names of the nodes to k1..kN: an external
	// cluster's file names its brokers as it likes (broker1), and a
	// runbook may use those names wherever it names a node. The steps
	// hold kN; nil knows only k1..kN.
	NodeNames map[string]string
}
