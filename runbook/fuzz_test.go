package runbook

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad proves Load never panics, always reports an ErrorList whose
// positions are inside the file, and that a loaded Doc expands for every
// run. Seeds are the runbooks under testdata.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.md")
	more, _ := filepath.Glob("testdata/check/*.md")
	for _, file := range append(files, more...) {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("---\nparams: {a: 1}\nrepeat: 3\n---\n```kafka\nsleep ${a}s &\nexpect p99(${run}) < ${a}s\n```"))
	f.Add([]byte("~~~kafka\n\"${\n'\n~~~\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := Load("fuzz.md", src, Overrides{})
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("Load error %T %v is not a non-empty ErrorList", err, err)
			}
			for _, e := range list {
				if e.Pos.Line < 0 || e.Pos.Col < 0 {
					t.Fatalf("bad position %v", e.Pos)
				}
			}
			_ = err.Error()
			return
		}
		for run := 1; run <= min(d.Meta.Repeat, 3); run++ {
			if _, err := d.Expand(run); err != nil {
				t.Fatalf("Expand(%d) after a clean Load: %v", run, err)
			}
		}
		_ = d.ShellBlocks()
	})
}
