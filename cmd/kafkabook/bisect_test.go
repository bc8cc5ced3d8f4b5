package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/bisect"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

// TestBisectThreeReleases bisects the last replica standing across three
// releases on real clusters, following how its leader was elected: 4.0.2
// elects a leader from the ISR that never emptied, 4.1.0 and 4.1.1 fall
// back to KIP-966's last known leader. The search probes the ends and
// then the middle, names 4.0.2 and 4.1.0, and records the runs behind it.
// The record's claim is checked against the controllers' own lines, read
// from the evidence without the explain package that judged it.
func TestBisectThreeReleases(t *testing.T) {
	testcluster.FullTier(t)
	testcluster.Require(t)
	bin := buildKafkabook(t)
	out, state := t.TempDir(), t.TempDir()
	stdout, stderr, code := runKB(t, bin, state, "bisect", filepath.Join("testdata", "bisect", "last-replica.md"),
		"--good", "4.0.2", "--bad", "4.1.1", "--elections", "plast", "--out", out, "--record-host=false")
	if code != 0 {
		t.Fatalf("bisect exited with %d, want 0 (a change found)\n%s\n%s", code, tail(stdout, 60), stderr)
	}
	for _, want := range []string{
		"bisect: 3 releases from 4.0.2 to 4.1.1, following elections(plast)",
		"bisect: clean on 4.0.2, last-known-leader on 4.1.0, the next release",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, tail(stdout, 30))
		}
	}
	data, err := os.ReadFile(filepath.Join(out, "last-replica", bisect.FileName("4.0.2", "4.1.1")))
	if err != nil {
		t.Fatal(err)
	}
	var rec bisect.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, p := range rec.Probes {
		order = append(order, p.Release+" "+string(p.Outcome))
	}
	if want := []string{"4.0.2 clean", "4.1.1 last-known-leader", "4.1.0 last-known-leader"}; !slices.Equal(order, want) {
		t.Errorf("probes %q, want %q", order, want)
	}
	if !rec.Changed || rec.Before != "4.0.2" || rec.After != "4.1.0" || len(rec.OnlyAfter) == 0 {
		t.Errorf("record: %+v", rec)
	}
	// The controllers' lines: an unclean election with an empty ISR on
	// each release after the change, none before it.
	for _, p := range rec.Probes {
		if len(p.Dirs) != 1 {
			t.Fatalf("%s: run directories %q, want one", p.Release, p.Dirs)
		}
		r, err := results.Load(filepath.Join(out, p.Dirs[0]))
		if err != nil {
			t.Fatal(err)
		}
		fallback := false
		for _, run := range r.Runs {
			for _, s := range run.Steps {
				for _, o := range s.Output {
					fallback = fallback || strings.Contains(o, "using an unclean election") && strings.Contains(o, "isr=[]")
				}
			}
		}
		if want := p.Release != "4.0.2"; fallback != want {
			t.Errorf("%s: the controller logged an unclean election from an empty ISR: %v, want %v", p.Release, fallback, want)
		}
	}
}
