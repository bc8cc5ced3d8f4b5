package backends

import (
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/runbook"
)

// TestFaultTable holds the fault table's backends (runbook.FaultKinds'
// Cannot, which check's refusals and Lacks read) to what each backend's
// type implements: a backend the table lets inject a fault has the
// capability the engine calls for it, and one the table refuses has not.
func TestFaultTable(t *testing.T) {
	capability := map[string]func(cluster.Backend) bool{
		"partition": func(b cluster.Backend) bool { _, ok := b.(cluster.NetFaults); return ok },
		"loss":      func(b cluster.Backend) bool { _, ok := b.(cluster.NetFaults); return ok },
		"link":      func(b cluster.Backend) bool { _, ok := b.(cluster.NetFaults); return ok },
		"delay":     func(b cluster.Backend) bool { _, ok := b.(cluster.Delayer); return ok },
		"disk":      func(b cluster.Backend) bool { _, ok := b.(cluster.Disks); return ok },
		"corrupt":   func(b cluster.Backend) bool { _, ok := b.(cluster.Corrupter); return ok },
		"clock":     func(b cluster.Backend) bool { _, ok := b.(cluster.Clocks); return ok },
		"powerloss": func(b cluster.Backend) bool { _, ok := b.(cluster.PowerLoss); return ok },
	}
	for _, k := range runbook.FaultKinds {
		has, ok := capability[k.Op]
		if !ok {
			if len(k.Cannot) > 0 {
				t.Errorf("fault %s: the table refuses it on %v, and this test knows no capability to hold that to", k.Op, k.Cannot)
			}
			continue
		}
		for _, kind := range Kinds {
			_, refused := k.Cannot[kind.Name]
			if can := has(kind.Type); can == refused {
				t.Errorf("fault %s on backend %s: the table refuses it: %v; the backend's type implements it: %v", k.Op, kind.Name, refused, can)
			}
		}
	}
}
