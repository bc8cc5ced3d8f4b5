package main

import (
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster/external"
)

// TestExternalFaultMissing checks what an external cluster refuses: a
// node fault its file has no command for, and a network fault, which
// only kafkabook's own clusters inject; it takes what goes through
// Kafka's admin API (reassign, elect) and the faults its file names.
func TestExternalFaultMissing(t *testing.T) {
	cf, err := external.Parse([]byte("name: prod\nnodes:\n  - {name: broker1, id: 1, address: \"broker1:9093\"}\nfaults:\n  kill: [ssh, \"{node}\", kill]\n  start: [ssh, \"{node}\", start]\n"))
	if err != nil {
		t.Fatal(err)
	}
	missing := externalFaultMissing(cf)
	for need, want := range map[string]string{
		"kill":            "",
		"elect":           "",
		"reassign":        "",
		"wait reassigned": "",
		"partition":       "backend: external applies only the node faults of its cluster file",
		"pause":           "pause",
	} {
		got := missing(need)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", need, got, want)
		}
	}
}
