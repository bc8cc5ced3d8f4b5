package runbook

import (
	"strings"
	"testing"
)

// TestCannot checks check's refusals by backend against the fault table:
// a fault its row refuses on a backend is refused with the row's reason
// and the backends that can, a flag picks its own row (link --rate runs
// everywhere kafkabook runs the cluster, link --delay on local only), and
// a backend chosen later ("") is refused nothing here.
func TestCannot(t *testing.T) {
	for _, c := range []struct{ backend, need, want string }{
		{"docker", "link --delay", ""},
		{"kubernetes", "link --delay", ""},
		{"external", "link --delay", "link --delay needs the local, docker or kubernetes backend (backend: external applies only the node faults of its cluster file)"},
		{"docker", "link", ""},
		{"external", "link", ""}, // every link step names its flag too: link --rate
		{"external", "link --rate", "link --rate needs the local, docker or kubernetes backend (backend: external applies only the node faults of its cluster file)"},
		{"external", "partition", "partition needs the local, docker or kubernetes backend (backend: external applies only the node faults of its cluster file)"},
		{"external", "clock", "clock needs the local, docker or kubernetes backend (backend: external applies only the node faults of its cluster file)"},
		{"kubernetes", "clock", ""},
		{"local", "clock", ""},
		{"docker", "clock", ""},
		{"", "corrupt", ""},
		{"external", "kill", ""},
		{"docker", "restart --to", ""}, // no fault of the table: cluster.Lacks
	} {
		if got := Cannot(c.backend, c.need); got != c.want {
			t.Errorf("Cannot(%q, %q) = %q, want %q", c.backend, c.need, got, c.want)
		}
	}
	for _, k := range FaultKinds {
		for b := range k.Cannot {
			if !strings.Contains(strings.Join(Backends, " "), b) {
				t.Errorf("fault %s: Cannot names %q, which is no backend", k.Op, b)
			}
		}
	}
}
