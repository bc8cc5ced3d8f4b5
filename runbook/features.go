package runbook

// features: the cluster's finalized feature levels, now.

const OpFeatures Op = "features"

// Features shows the finalized feature levels: features.
type Features struct{}

func (Features) action() {}

var featuresDirective = &Directive{
	Op:    OpFeatures,
	build: func(*Step) Action { return Features{} },
	Name:  "features",
	Summary: "Show the cluster's finalized feature levels now (metadata.version, transaction.version, group.version, ...), " +
		"as a broker answers ApiVersions; the levels at the run's start are in the provenance.",
	Example: `features`,
}
