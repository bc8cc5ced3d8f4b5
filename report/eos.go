package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kafkabook/kafkabook/results"
)

// eosRows are the tally rows of a transform group's exactly-once check:
// each finding with its proof (the offsets of every copy in the output,
// or the input's offset for one missing).
func eosRows(c *results.EOSCheck) []tallyRow {
	class := func(n int) string {
		if n > 0 {
			return "bad"
		}
		return ""
	}
	dups := make([]idItem, 0, min(len(c.Duplicates), maxGroupIDs))
	for _, d := range c.Duplicates[:min(len(c.Duplicates), maxGroupIDs)] {
		var at []string
		for _, o := range d.Out {
			at = append(at, fmt.Sprintf("p%d@%d", o.Partition, o.Offset))
		}
		dups = append(dups, idItem{ID: d.ID, Note: fmt.Sprintf("×%d in %s at %s", len(d.Out), c.Out, strings.Join(at, ", "))})
	}
	missing := make([]idItem, 0, min(len(c.Missing), maxGroupIDs))
	for _, m := range c.Missing[:min(len(c.Missing), maxGroupIDs)] {
		missing = append(missing, idItem{ID: m.ID, Note: fmt.Sprintf("input at p%d@%d", m.Partition, m.Offset)})
	}
	return []tallyRow{
		{Name: "derived once", Value: fmt.Sprintf("%d of %d", c.Once, c.Inputs),
			Detail:  fmt.Sprintf("%d committed records in %s", c.Outputs, c.Out),
			Meaning: "input records whose derived record the output holds exactly once among committed records (a read_committed read)"},
		{Name: "derived twice or more", Func: "eos_duplicates", Value: strconv.Itoa(len(c.Duplicates)), Class: class(len(c.Duplicates)),
			IDs: dups, More: max(len(c.Duplicates)-maxGroupIDs, 0), Meaning: measureSummary("eos_duplicates")},
		{Name: "derived never", Func: "eos_missing", Value: strconv.Itoa(len(c.Missing)), Class: class(len(c.Missing)),
			IDs: missing, More: max(len(c.Missing)-maxGroupIDs, 0), Meaning: measureSummary("eos_missing")},
	}
}
