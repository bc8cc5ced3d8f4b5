package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// fastExamples are the examples the fast tier (make test) runs end to
// end: the first article's producer finding, the README's first command.
// The fast tier meets the other examples' parts in the engine's tests:
// the second article's consumer commits as the consumer conformance
// table, through every client with readers of the test's own, and
// exactly-once's transform crash, zombie and frozen producer as
// TestTransformCrash, TestTransformZombie and TestTransactionTimeout; the
// full tier (make test-full) runs every example.
var fastExamples = map[string]bool{"producer-acks": true}

// TestExamples runs every example runbook once (--repeat 1), as a user
// would, with the binary users install: each must complete and every one
// of its expectations must hold. The runbooks' expectations are the
// claims their reports publish, so this is what keeps the published
// findings reproducible: the full tier runs them all before a release.
func TestExamples(t *testing.T) {
	testcluster.Require(t)
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example runbooks: %v", err)
	}
	bin := buildKafkabook(t)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		t.Run(name, func(t *testing.T) {
			if !fastExamples[name] {
				testcluster.FullTier(t)
			}
			out, state := t.TempDir(), t.TempDir()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := runbook.Load(f, data, runbook.Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			// A sweep's rates over runs are undecided after one run (exit
			// 1): its runs must complete and its per-run expectations hold.
			combos := runbook.Combinations(doc.Meta.Sweep)
			stdout, stderr, code := runKB(t, bin, state, "run", f, "--repeat", "1", "--out", out, "--record-host=false")
			if code != 0 && (len(combos) == 0 || code != exitExpect) {
				t.Fatalf("kafkabook run %s exited with %d, want 0 (every expectation held)\n%s\n%s", f, code, tail(stdout, 80), stderr)
			}
			// One evidence directory per client the front matter names,
			// and per combination of a sweep.
			series := filepath.Join(out, name, "kafka-*", "2*")
			if len(combos) > 0 {
				series = filepath.Join(out, name+".*", "kafka-*", "2*")
			}
			dirs, _ := filepath.Glob(series)
			if want := max(len(doc.Meta.Client), 1) * max(len(combos), 1); len(dirs) != want {
				t.Fatalf("want %d evidence directories (one per client and combination) under %s, found %v", want, out, dirs)
			}
			for _, dir := range dirs {
				checkExample(t, f, dir)
				checkRecheck(t, bin, state, dir)
			}
			noMachinePaths(t, out, state)
		})
	}
}

// checkExample checks one evidence directory of an example's run: one
// complete run whose every expectation held, and its report.
func checkExample(t *testing.T, f, dir string) {
	t.Helper()
	res, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || len(res.Runs) != 1 {
		t.Fatalf("%s: complete %v with %d runs, want one complete run", dir, res.Complete, len(res.Runs))
	}
	run := res.Runs[0]
	if len(run.Expectations) == 0 {
		t.Errorf("%s checks no expectation: an example must state its finding", f)
	}
	for _, e := range run.Expectations {
		if !e.Held && !e.Undecided {
			t.Errorf("%s (%s): %s is %s: did not hold", e.Pos, filepath.Base(filepath.Dir(dir)), e.Expr, e.Actual)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Errorf("no report: %v", err)
	}
}

// checkRecheck derives every tally of an example's run again from its
// stored reads (kafkabook recheck) and wants each the same as recorded.
func checkRecheck(t *testing.T, bin, state, dir string) {
	t.Helper()
	res, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range res.Runs {
		n += len(r.Tallies) + len(r.Final)
		for _, c := range r.Consumers {
			if c.Tally != nil {
				n++ // a group's tally is derived again too
			}
		}
	}
	stdout, stderr, code := runKB(t, bin, state, "recheck", dir)
	if want := fmt.Sprintf("1 run directories, %d tallies derived again, 0 differences", n); code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("kafkabook recheck %s exited with %d, want 0 and %q:\n%s\n%s", dir, code, want, stdout, stderr)
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// noMachinePaths checks that nothing a run wrote for publishing under out
// (results.json, the event stream, the runbook, the pages) names the
// cluster's state directory or the output directory as this machine
// spells them, nor the host (the runs pass --record-host=false): the
// broker lines kept as evidence name the nodes' data directories, which
// the engine writes as $KAFKABOOK_STATE.
func noMachinePaths(t *testing.T, out, state string) {
	t.Helper()
	host, _ := os.Hostname()
	files := 0
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 || filepath.Ext(p) == ".js" {
			return err // latest is a link to a run directory
		}
		data, err := os.ReadFile(p)
		if err == nil && filepath.Base(p) == results.ArchivedEventsFileName {
			data, err = results.ReadEvents(p) // the stream, archived once results.json loads
		}
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(out, p)
		for _, path := range []string{state, out} {
			if bytes.Contains(data, []byte(path)) {
				t.Errorf("%s names the machine's path %s", rel, path)
			}
		}
		if host != "" && filepath.Base(p) == results.FileName && bytes.Contains(data, []byte(`"host": "`+host+`"`)) {
			t.Errorf("%s records the host name despite --record-host=false", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 4 {
		t.Errorf("only %d files written under %s", files, out)
	}
}
