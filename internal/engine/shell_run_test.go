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

// TestShellBlock: with --allow-shell an sh block runs where the cluster's
// clients run (here, through launch.Host), its stdout and stderr lines
// both reach the step's output, it sees the cluster's bootstrap list, and
// a failing command fails the step and the run.
func TestShellBlock(t *testing.T) {
	backend, st := sharedOne(t)
	src := "---\ntitle: sh\nnodes: 1\n---\n\n```sh\necho out-line\necho err-line >&2\necho \"bootstrap=$KAFKA_BOOTSTRAP\"\nfalse\necho never\n```\n"
	doc, err := runbook.Load("sh.md", []byte(src), runbook.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := results.NewRunDir(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, err = engine.Run(context.Background(), engine.Options{Doc: doc, Dir: dir, Backend: backend, Out: &out, AllowShell: true})
	console := out.String()
	t.Log(console)
	if err == nil {
		t.Error("the run passed, though its sh block ran false")
	}
	for _, want := range []string{"out-line", "err-line", "bootstrap=" + strings.Join(st.Bootstrap(), ",")} {
		if !strings.Contains(console, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if strings.Contains(console, "\n  never\n") {
		t.Error("the block went on after false (sh -e)")
	}
}
