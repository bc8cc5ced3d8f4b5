package runbook

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files and docs/runbook-language.md")

// TestCheckGolden loads every runbook in testdata/check and compares what
// check would print (every error with its line and caret, or nothing) with
// the .golden file beside it. Run with -update to rewrite the goldens.
func TestCheckGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/check/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 12 {
		t.Fatalf("only %d runbooks in testdata/check", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".md")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if _, err := Load(filepath.ToSlash(file), src, Overrides{}); err != nil {
				if _, ok := err.(ErrorList); !ok {
					t.Fatalf("Load returned %T, want ErrorList", err)
				}
				got = err.Error() + "\n"
			}
			golden := strings.TrimSuffix(file, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("Load(%s) errors differ from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", file, golden, got, want)
			}
		})
	}
}
