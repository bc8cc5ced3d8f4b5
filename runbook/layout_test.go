package runbook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayoutMatchesLoad lays out every example: the same blocks, in the
// same order, with the same step positions as the checked Doc, and the
// front matter as written.
func TestLayoutMatchesLoad(t *testing.T) {
	files, err := filepath.Glob("../examples/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := Load(f, src, Overrides{})
		o := Layout(f, src)
		if len(o.Blocks) != len(doc.Blocks) {
			t.Fatalf("%s: %d blocks, Load has %d", f, len(o.Blocks), len(doc.Blocks))
		}
		for i, b := range o.Blocks {
			d := doc.Blocks[i]
			if b.Kind != d.Kind || b.Pos != d.Pos || b.Text != d.Text || len(b.Steps) != len(d.Steps) {
				t.Fatalf("%s: block %d is %v at %v with %d steps, Load has %v at %v with %d", f, i, b.Kind, b.Pos, len(b.Steps), d.Kind, d.Pos, len(d.Steps))
			}
			for j, st := range b.Steps {
				if st.Pos != d.Steps[j].Pos || st.Background != d.Steps[j].Background {
					t.Errorf("%s: step %d of block %d at %v, Load has %v", f, j, i, st.Pos, d.Steps[j].Pos)
				}
			}
		}
		if o.Title != "" && !strings.Contains(string(src), o.Title) {
			t.Errorf("%s: title %q", f, o.Title)
		}
		if !strings.HasPrefix(string(src), "---\n"+o.FrontMatter+"\n---") {
			t.Errorf("%s: front matter %q", f, o.FrontMatter)
		}
	}
}

// TestLayoutDoesNotCheck lays out a runbook whose steps no longer check:
// every step keeps its place, and unclosed front matter is prose.
func TestLayoutDoesNotCheck(t *testing.T) {
	src := "---\ntitle: x\nnodes: 99\n---\n# Old\n\nSome prose.\n\n```kafka\nno-such-directive --flag\n  produce t --acks 7 &\n# a comment\n\n```\n\n```sh\necho hi\n```\nThe end.\n"
	o := Layout("old.md", []byte(src))
	if o.FrontMatter != "title: x\nnodes: 99" || o.Title != "Old" {
		t.Errorf("front matter %q, title %q", o.FrontMatter, o.Title)
	}
	var kinds []string
	for _, b := range o.Blocks {
		kinds = append(kinds, b.Kind.String())
	}
	if got := strings.Join(kinds, " "); got != "prose kafka sh prose" {
		t.Fatalf("blocks %s", got)
	}
	st := o.Blocks[1].Steps
	if len(st) != 2 || st[0].Pos.String() != "old.md:10:1" || st[1].Pos.String() != "old.md:11:3" || !st[1].Background || st[1].Text != "produce t --acks 7 &" {
		t.Errorf("steps %+v", st)
	}
	if o := Layout("open.md", []byte("---\ntitle: x\n")); o.FrontMatter != "" || len(o.Blocks) != 1 || o.Blocks[0].Kind != Prose {
		t.Errorf("unclosed front matter: %+v", o)
	}
}
