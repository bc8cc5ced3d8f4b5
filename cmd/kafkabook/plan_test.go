package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/site"
)

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
	var p site.Plan
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
