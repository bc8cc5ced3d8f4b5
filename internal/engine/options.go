package engine

import (
	"io"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// Options is one invocation of the engine: one runbook against one Kafka
// version on one cluster that is already up.
type Options struct {
	Doc        *runbook.Doc
	Dir        string          // evidence directory, empty: made by results.NewRunDir, so two runs never share one
	Backend    cluster.Backend // the cluster, up and reachable
	AllowShell bool            // run sh blocks
	Out        io.Writer       // console: steps and their output as they run
	Verbose    bool            // print (and record) every message's result, not only a summary
	Provenance results.Provenance
	// Client is the client produce steps send through unless a step names
	// its own: franz-go ("" too), java[@V] or librdkafka[@V] (one entry
	// of the front matter's client: list or of --client). The caller
	// runs the runbook once per client, as once per Kafka release.
	Client string
	// UntilDecided repeats the runbook past its repeat count while an
	// expectation on a rate over runs (runs_lost(t) < 5% at 95%) is
	// undecided, up to MaxRuns runs in all.
	UntilDecided bool
	MaxRuns      int
}
