package report

import (
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/bisect"
)

// TestSiteBisect: the index's line for a bisect that named a change, one
// whose ends agreed and one that stopped early, each from its record.
func TestSiteBisect(t *testing.T) {
	probes := []bisect.Probed{
		{Release: "4.0.0", Outcome: "clean", Runs: 2, Dirs: []string{"pl/kafka-4.0.0/20260101T000000Z"}},
		{Release: "4.4.0", Outcome: "last-known-leader", Runs: 2, Dirs: []string{"pl/kafka-4.4.0/20260101T000000Z"}},
	}
	rec := bisect.Record{Runbook: "pl", Judge: "elections(plast)", Releases: []string{"4.0.0", "4.1.0", "4.4.0"}, Probes: probes}
	for _, c := range []struct {
		change func(*bisect.Record)
		want   string
	}{
		{func(r *bisect.Record) { r.Changed, r.Before, r.After = true, "4.0.0", "4.4.0" }, "clean up to 4.0.0, last-known-leader from 4.4.0"},
		{func(r *bisect.Record) { r.Before, r.After = "4.0.0", "4.4.0"; r.Probes = r.Probes[:1] }, "clean on both ends: no change between them"},
		{func(r *bisect.Record) { r.Stopped = "on 4.1.0: interrupted" }, "stopped before it could name a change (on 4.1.0: interrupted)"},
	} {
		r := rec
		r.Probes = append([]bisect.Probed(nil), probes...)
		c.change(&r)
		b := newSiteBisect(r)
		if b.Finding != c.want || b.Ends != "4.0.0 → 4.4.0" || !strings.HasSuffix(b.Probes[0].Link, "/index.html") {
			t.Errorf("got %+v, want finding %q", b, c.want)
		}
	}
}
