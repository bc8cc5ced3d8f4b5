package engine_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/engine"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// decideRunbook loses nothing, so its rate is decided once enough runs
// bound it: 0 of 1 run bounds runs_lost at 95% (undecided against 80%),
// 0 of 2 at 77.6% (held).
const decideRunbook = "---\ntitle: until decided\nrepeat: 1\n---\n```kafka\n" +
	"topic create d --replicas 1:2:3\n" +
	"produce d --acks all --count 5\n" +
	"expect lost(d) == 0\n" +
	"expect runs_lost(d) < 80% at 95%\n" +
	"```\n"

// TestUntilDecided: run --until-decided repeats a runbook past its repeat
// count until the rate over its runs is decided (2 runs here), records
// the expectation undecided in the runs before, and stops there.
func TestUntilDecided(t *testing.T) {
	backend, _ := sharedThree(t)
	doc, err := runbook.Load("decide.md", []byte(decideRunbook), runbook.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := results.NewRunDir(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := engine.Run(context.Background(), engine.Options{Doc: doc, Dir: dir, Backend: backend, Out: &out, UntilDecided: true, MaxRuns: 10})
	t.Cleanup(func() { t.Log(out.String()) })
	if err != nil {
		t.Fatal(err)
	}
	recheckStored(t, dir, res)
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs, want 2: decided after the 2nd", len(res.Runs))
	}
	for i, run := range res.Runs {
		e := run.Expectations[1]
		if undecided := i < 1; e.Undecided != undecided || e.Held == undecided {
			t.Errorf("run %d: %s is %q, undecided %v, held %v", run.Number, e.Expr, e.Actual, e.Undecided, e.Held)
		}
		if !run.Held() {
			t.Errorf("run %d failed: an undecided rate does not fail a run", run.Number)
		}
	}
	if want := "0 of 2 runs lost any: the rate is at most 77.6% (95% confidence)"; res.Runs[1].Expectations[1].Actual != want {
		t.Errorf("the 2nd run's verdict is %q, want %q", res.Runs[1].Expectations[1].Actual, want)
	}
	if !strings.Contains(out.String(), "every rate decided after 2 runs") {
		t.Errorf("the console does not say when the rate was decided")
	}
}
