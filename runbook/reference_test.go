package runbook

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

const referencePath = "../docs/runbook-language.md"

// TestReference keeps docs/runbook-language.md equal to what the registry
// says; go test -update rewrites it.
func TestReference(t *testing.T) {
	got := Reference()
	if *update {
		if err := os.WriteFile(referencePath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("%v (go test ./runbook -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date with the directive registry: run go test ./runbook -update", referencePath)
	}
	for _, d := range Directives {
		if !strings.Contains(string(got), "\n"+d.Usage+"\n") {
			t.Errorf("reference lacks the usage of %s", d.Name)
		}
	}
	for _, k := range metaKeys {
		if !strings.Contains(string(got), "| `"+k+"` |") {
			t.Errorf("reference lacks front matter key %s", k)
		}
	}
}

// TestRegistry checks the registry is well formed: names unique, every
// directive summarized, every flag documented with a metavariable.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Directives {
		if seen[d.Name] {
			t.Errorf("directive %s twice", d.Name)
		}
		seen[d.Name] = true
		if d.Summary == "" || !strings.HasSuffix(d.Summary, ".") {
			t.Errorf("%s: summary %q must be one sentence", d.Name, d.Summary)
		}
		for _, f := range d.Flags {
			if f.Help == "" || (f.Kind != KindBool && f.Meta == "") {
				t.Errorf("%s --%s: needs Help and Meta", d.Name, f.Name)
			}
			if _, ok := kindText[f.Kind]; !ok {
				t.Errorf("%s --%s: kind %d has no text", d.Name, f.Name, f.Kind)
			}
		}
	}
	if got := Lookup("produce").Usage; got != "produce TOPIC [--acks 0|1|all] [--client CLIENT[@V]] [-X NAME=VALUE]... [--from N] [--count N] [--rate N/s] [--for DUR] [--size BYTES] [--keys N] [--key KEY] [--event-id ID] [--idempotent] [--retries N|max] [--max-in-flight N] [--delivery-timeout DUR] [--transactional] [--txn-size N] [--abort-every K] [--via NODE]" {
		t.Errorf("produce usage = %q", got)
	}
}

// TestDirectiveExamples: every directive has an example that uses it, and
// the examples in registry order make a runbook that checks cleanly
// (EveryDirective, which the engine's tests run on a cluster).
func TestDirectiveExamples(t *testing.T) {
	src := EveryDirective()
	doc, err := Load("every-directive.md", []byte(src), Overrides{})
	if err != nil {
		t.Fatalf("EveryDirective does not check:\n%v\n%s", err, src)
	}
	used := map[Op]bool{}
	for _, b := range doc.Blocks {
		for _, s := range b.Steps {
			used[s.Op] = true
		}
	}
	for _, d := range Directives {
		if d.Example == "" {
			t.Errorf("directive %q has no example", d.Name)
			continue
		}
		uses := false
		for _, line := range strings.Split(d.Example, "\n") {
			if strings.HasPrefix(line, d.Name+" ") || line == d.Name {
				uses = true
			}
		}
		if !uses {
			t.Errorf("directive %q: its example does not use it:\n%s", d.Name, d.Example)
		}
		if d.Alone == "" && !used[d.Op] {
			t.Errorf("directive %q is not in EveryDirective", d.Name)
		}
	}
}
