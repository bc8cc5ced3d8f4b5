package engine_test

import (
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// typoRunbook is the second article's value-serializer typo on Spring's
// listener container, let through with --allow-unknown, with the
// StringDeserializer Spring Boot leaves in force when value-deserializer
// is not set.
const typoRunbook = "---\ntitle: typo\nnodes: 1\nrepeat: 1\n---\n" + "```kafka" + `
topic create t --replicas 1
consume t --group typo --commit after --ack-mode manual --dedup table -X value-serializer=org.apache.kafka.common.serialization.ByteArrayDeserializer --allow-unknown value-serializer -X value.deserializer=org.apache.kafka.common.serialization.StringDeserializer &
produce t --client franz-go --acks all --count 3 --key 2
sleep 5s
` + "```\n"

// TestAllowUnknownSpring runs a spring member with the typo let through:
// the step's output carries the driver's unknown_properties and
// kafka-clients' own log line naming the property; every record fails the
// listener, and Spring's error handler logs each (ClassCastException) and
// commits past it: an admin client of the test's own finds offset 3, the
// store opened directly holds no effect, and the tally names all three
// unapplied.
func TestAllowUnknownSpring(t *testing.T) {
	installDriver(t, runbook.Spring)
	backend, _ := sharedOne(t)
	res, dir, err := runWithClientDir(t, backend, runbook.Spring, typoRunbook)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run := res.Runs[0]

	var output []string
	for _, s := range run.Steps {
		if strings.HasPrefix(s.Text, "consume t ") {
			output = s.Output
		}
	}
	listed := slices.ContainsFunc(output, func(l string) bool {
		return strings.Contains(l, "-X value-serializer let through") && strings.Contains(l, "unknown_properties")
	})
	logged := slices.ContainsFunc(output, func(l string) bool {
		return strings.HasPrefix(l, "client log: ") && strings.Contains(l, "'[value-serializer]' were supplied but are not used yet")
	})
	if !listed || !logged {
		t.Errorf("the consume step's output does not carry the client's reaction (listed %v, logged %v):\n%s", listed, logged, strings.Join(output, "\n"))
	}

	g, ok := run.Consumer("typo")
	if !ok || g.Tally == nil || len(g.Members) != 1 {
		t.Fatalf("no tally or not one member of group typo: %+v", g)
	}
	tl := g.Tally
	if want := []string{"m-001", "m-002", "m-003"}; tl.Delivered != 3 || tl.Applied != 0 || !slices.Equal(tl.Unapplied, want) {
		t.Errorf("delivered %d, applied %d, unapplied %v; want 3, 0, %v", tl.Delivered, tl.Applied, tl.Unapplied, want)
	}
	var exhausted, cast int
	for _, l := range g.Members[0].ClientErrors {
		if strings.Contains(l, "DefaultErrorHandler") && strings.Contains(l, "exhausted for") {
			exhausted++
		}
		if strings.Contains(l, "java.lang.ClassCastException") {
			cast++
		}
	}
	if exhausted != 3 || cast != 3 {
		t.Errorf("client errors: %d 'exhausted' lines and %d ClassCastException, want 3 each:\n%s", exhausted, cast, strings.Join(g.Members[0].ClientErrors, "\n"))
	}

	if got := independentOffsets(t, backend.Status, "typo", "t"); got[0] != 3 || tl.Committed[0] != 3 {
		t.Errorf("committed: independent client %v, kafkabook %v; want 3", got, tl.Committed)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, g.Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var effects int
	if err := db.QueryRow(`SELECT COUNT(*) FROM applied`).Scan(&effects); err != nil || effects != 0 {
		t.Errorf("the store's applied rows: %d (%v), want 0", effects, err)
	}

	loaded, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if lg, ok := loaded.Runs[0].Consumer("typo"); !ok || len(lg.Members) != 1 || len(lg.Members[0].ClientErrors) == 0 || lg.Settings["allow-unknown"] != "value-serializer" {
		t.Errorf("results.json lacks the member's client errors or the allow-unknown setting: %+v", lg)
	}
}
