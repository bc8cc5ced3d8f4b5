package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/site"
	"github.com/kafkabook/kafkabook/runbook"
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

// TestPlanNewReleases: --new-releases lists, per runbook and client, the
// releases the Maven repository has (from --since on, candidates left
// out) that the site holds no run of, with the runbook's repeats.
func TestPlanNewReleases(t *testing.T) {
	maven := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/org/apache/kafka/kafka_2.13/maven-metadata.xml" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `<metadata><versioning><versions><version>3.9.1</version><version>4.0.0</version>`+
			`<version>4.10.0-rc1</version><version>4.3.1</version><version>4.10.0</version></versions></versioning></metadata>`)
	}))
	defer maven.Close()
	dir := t.TempDir()
	rb := filepath.Join(dir, "fresh.md")
	if err := os.WriteFile(rb, []byte("---\nkafka: [4.3.1]\nclient: [franz-go, java]\nrepeat: 2\n---\n```kafka\ntopic create t --replicas 1:2:3\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "site")
	for _, series := range []string{"kafka-4.3.1", "kafka-4.0.0-java", "kafka-4.10.0-java"} {
		if err := os.MkdirAll(filepath.Join(root, "fresh", series, "20261205T000000Z"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(root, "fresh", "kafka-4.0.0", "latest"), 0o755) // no run in it
	out, err := kafkabook(t, "plan", "--new-releases", "--site", root, "--maven", maven.URL, rb)
	if err != nil {
		t.Fatal(err)
	}
	var p site.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range p.Include {
		ids = append(ids, c.ID)
	}
	want := []string{
		"fresh.kafka-4.0.0.r1", "fresh.kafka-4.0.0.r2", "fresh.kafka-4.10.0.r1", "fresh.kafka-4.10.0.r2",
		"fresh.java.kafka-4.3.1.r1", "fresh.java.kafka-4.3.1.r2",
	}
	if !slices.Equal(ids, want) {
		t.Errorf("cells %q, want %q", ids, want)
	}
	if _, err := kafkabook(t, "plan", "--new-releases", "--kafka", "4.3.1", rb); err == nil || !strings.Contains(err.Error(), "drop --kafka") {
		t.Errorf("--new-releases with --kafka: %v, want refused", err)
	}
}

// TestCellOfSweep: a cell id names its combination of the sweep; run
// --cell picks that one (and its client), and refuses a combination the
// sweep does not have.
func TestCellOfSweep(t *testing.T) {
	combos := runbook.Combinations([]runbook.SweepParam{{Name: "acks", Values: []string{"1", "all"}}, {Name: "mis", Values: []string{"1", "2"}}})
	for _, tc := range []struct{ id, combo, client, err string }{
		{id: "sw.acks-all.mis-1.kafka-4.3.1.r2", combo: "acks=all mis=1", client: runbook.FranzGo},
		{id: "sw.acks-1.mis-2.java@4.3.1.kafka-4.2.2.r1", combo: "acks=1 mis=2", client: "java@4.3.1"},
		{id: "sw.acks-0.mis-1.kafka-4.3.1.r1", err: "names no combination"},
		{id: "other.acks-1.mis-1.kafka-4.3.1.r1", err: "names no combination"},
	} {
		var f runbookFlags
		c := cellFlags{id: tc.id}
		err := c.apply("dir/sw.md", &f, combos)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.id, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.id, err)
		case f.sweep.String() != tc.combo || f.client[0] != tc.client || f.repeat != 1:
			t.Errorf("%s: combination %q, client %v, repeat %d; want %q, %s", tc.id, f.sweep, f.client, f.repeat, tc.combo, tc.client)
		}
	}
}
