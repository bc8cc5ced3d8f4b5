package engine

import (
	"context"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// recordFeatures asks the healed cluster for its finalized features and
// records them in the provenance (a features event), so that the evidence
// says which transaction protocol (transaction.version, KIP-890) the runs
// met: a release's default is what its storage format finalized, and a
// run's verdict on transactions depends on it. A cluster that cannot say
// is noted on the console and leaves the features unrecorded; the run goes
// on, since the features explain evidence and are not evidence of loss.
func (o *observation) recordFeatures(ctx context.Context) {
	fs, err := o.admin.FinalizedFeatures(ctx)
	if err != nil {
		o.con.printf("the cluster's features are not recorded: %v\n", err)
		return
	}
	o.ev.Emit(results.KindFeatures, o.num, results.FeaturesEvent{Finalized: fs})
	o.con.printf("%s\n", featuresLine(fs))
}

var _ = handles(features, runbook.OpFeatures)

// features: features — the finalized levels when the step runs, in its
// output (after an upgrade, say); the run's first levels went to the
// provenance before it began.
func features(ctx context.Context, o *observation, s runbook.Step, _ runbook.Features, log *stepLog) error {
	fs, err := o.admin.FinalizedFeatures(ctx)
	if err != nil {
		return err
	}
	log.line("%s", featuresLine(fs))
	return nil
}
