package main

import (
	"strings"

	"github.com/kafkabook/kafkabook/internal/site"
	"github.com/kafkabook/kafkabook/runbook"
	"github.com/spf13/pflag"
)

// cellFlags are run's --cell and --batch: run one cell of a plan.
type cellFlags struct {
	id, batch string
}

func (c *cellFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.id, "cell", "", "run one cell of 'kafkabook plan': ID is RUNBOOK[.CLIENT].kafka-VERSION.rN (one run on that release with that client), recorded in the provenance")
	fs.StringVar(&c.batch, "batch", "", "the batch the run belongs to (the plan's batch), recorded in the provenance")
}

// apply checks that the runbook's name can name its evidence directory
// and narrows the runbook flags to the cell: its release, one run, and in
// a sweep (combos, the runbook's combinations) its combination. The id
// must name the runbook given; --kafka and --repeat would contradict it.
func (c *cellFlags) apply(path string, f *runbookFlags, combos []runbook.Combination) error {
	name, err := runbookName(path)
	if err != nil || c.id == "" {
		return err
	}
	prefix, kafka, _, err := site.ParseCellID(c.id)
	if err != nil {
		return usageErr("%v", err)
	}
	var picked runbook.Combination
	for _, combo := range combos {
		full := name + "." + combo.Name()
		if prefix == full || strings.HasPrefix(prefix, full+".") {
			picked = combo
			name = full
		}
	}
	if len(combos) > 0 && picked == nil {
		return usageErr("--cell %q names no combination of %s's sweep: (run each cell with the runbook `kafkabook plan` listed it with)", c.id, path)
	}
	client := runbook.FranzGo
	if rest, ok := strings.CutPrefix(prefix, name+"."); ok {
		if _, _, err := runbook.ParseClient(rest); err == nil {
			prefix, client = name, rest
		}
	}
	if prefix != name {
		return usageErr("--cell %q is a cell of runbook %q, not of %s (run each cell with the runbook `kafkabook plan` listed it with)", c.id, prefix, path)
	}
	if len(f.kafka) > 0 || len(f.client) > 0 || f.repeat != 0 {
		return usageErr("--cell %q names the Kafka release, the client and one run: leave out --kafka, --client and --repeat", c.id)
	}
	f.kafka, f.client, f.repeat, f.sweep = []string{kafka}, []string{client}, 1, picked
	return nil
}
