package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCellID: a cell id reads back as what made it, for release names with
// dots and dashes, runbook names with dots, and with a client; anything
// else is refused.
func TestCellID(t *testing.T) {
	for _, c := range []struct {
		runbook, client, kafka string
		repeat                 int
		id                     string
	}{
		{"producer-acks", "", "4.3.1", 1, "producer-acks.kafka-4.3.1.r1"},
		{"a.b", "", "4.0.0-rc1", 12, "a.b.kafka-4.0.0-rc1.r12"},
		{"producer-acks", "java", "4.4.0", 3, "producer-acks.java.kafka-4.4.0.r3"},
	} {
		id := cellID(c.runbook, c.client, c.kafka, c.repeat)
		if id != c.id {
			t.Errorf("cellID = %q, want %q", id, c.id)
		}
		prefix, kafka, repeat, err := parseCellID(id)
		want := c.runbook
		if c.client != "" {
			want += "." + c.client
		}
		if err != nil || prefix != want || kafka != c.kafka || repeat != c.repeat {
			t.Errorf("parseCellID(%q) = %q %q %d %v", id, prefix, kafka, repeat, err)
		}
	}
	for _, bad := range []string{"", "x", "x.kafka-4.3.1", "x.kafka-4.3.1.r", "x.kafka-4.3.1.r0", "x.kafka-4.3.1.r01", "x.kafka-.r1", "kafka-4.3.1.r1", ".kafka-4.3.1.r1", "x.kafka-4.3.1.r1x"} {
		if _, _, _, err := parseCellID(bad); err == nil {
			t.Errorf("parseCellID(%q) took it", bad)
		}
	}
}

// TestPlanDuplicatesAndLineBreaks: a release or client given twice makes
// one cell (two would collide as CI artifacts), and a --client or --kafka
// value with a line break is refused whole rather than cut at it.
func TestPlanDuplicatesAndLineBreaks(t *testing.T) {
	dir := t.TempDir()
	rb := filepath.Join(dir, "dup.md")
	if err := os.WriteFile(rb, []byte("---\nkafka: [4.3.1, 4.3.1]\nclient: [java, java]\n---\n```kafka\ntopic create t --replicas 1:2:3\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := kafkabook(t, "plan", rb, "--kafka", "4.3.1,4.3.1")
	if err != nil {
		t.Fatal(err)
	}
	var p matrixPlan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, c := range p.Include {
		ids[c.ID]++
	}
	if len(p.Include) != 1 || ids["dup.java.kafka-4.3.1.r1"] != 1 {
		t.Errorf("cells %+v, want one: dup.java.kafka-4.3.1.r1", p.Include)
	}
	for _, args := range [][]string{
		{"plan", rb, "--client", "java@4.3.1\nx"},
		{"check", rb, "--kafka", "4.3.1\n4.0.0"},
	} {
		if _, err := kafkabook(t, args...); err == nil || !strings.Contains(err.Error(), "line break") {
			t.Errorf("%q: %v, want the value refused for its line break", args, err)
		}
	}
}
