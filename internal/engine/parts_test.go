package engine

import (
	"go/ast"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"golang.org/x/tools/go/packages"
)

// parts places every file of the engine in one part of a run. The runner
// sequences the others; the workload, the nemesis, the observation and
// the checker each stand on the ground (env.go and the console) and on
// nothing of each other, so that a new directive or fault touches its own
// part only. A new file must be placed here.
var parts = map[string]string{
	"engine.go": "runner", "runner.go": "runner", "sequence.go": "runner", "shell.go": "runner",

	"env.go": "ground", "steps.go": "ground", "options.go": "ground", "output.go": "ground", "redact.go": "ground",

	"workload.go": "workload", "topic.go": "workload", "produce.go": "workload", "txn.go": "workload",
	"client.go": "workload", "letthrough.go": "workload", "consume.go": "workload", "member.go": "workload",
	"drivermember.go": "workload", "transform.go": "workload", "freeze.go": "workload", "coordinator.go": "workload",

	"nemesis.go": "nemesis", "delay.go": "nemesis", "heal.go": "nemesis", "restart.go": "nemesis", "reassign.go": "nemesis", "members.go": "nemesis", "voter.go": "nemesis", "powerloss.go": "nemesis", "disk.go": "nemesis", "inforce.go": "nemesis", "corrupt.go": "nemesis", "clock.go": "nemesis", "elect.go": "nemesis",

	"observation.go": "observation", "sampler.go": "observation", "read.go": "observation", "final.go": "observation",
	"txncheck.go": "observation", "isr.go": "observation", "wait.go": "observation", "logs.go": "observation",
	"features.go": "observation",

	"expect.go": "checker",
}

// mayUse says which parts a part's files may name: the runner all, a part
// itself and the ground, the ground only itself.
func mayUse(from, to string) bool {
	return from == to || from == "runner" || to == "ground"
}

// TestParts checks, with the type checker, that no file of one part names
// a type, function, field or method declared in another part's file, and
// that every file is placed in a part.
func TestParts(t *testing.T) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading the engine package: %v %v", err, pkgs)
	}
	pkg := pkgs[0]
	var bad []string
	for i, f := range pkg.Syntax {
		from := filepath.Base(pkg.CompiledGoFiles[i])
		part, ok := parts[from]
		if !ok {
			bad = append(bad, from+" is in no part: place it in parts")
			continue
		}
		seen := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := pkg.TypesInfo.Uses[id]
			if obj == nil || obj.Pkg() != pkg.Types || !obj.Pos().IsValid() {
				return true
			}
			to := filepath.Base(pkg.Fset.Position(obj.Pos()).Filename)
			if toPart, ok := parts[to]; ok && !mayUse(part, toPart) {
				msg := from + " (" + part + ") uses " + id.Name + " of " + to + " (" + toPart + ")"
				if !seen[msg] {
					seen[msg] = true
					bad = append(bad, msg)
				}
			}
			return true
		})
	}
	sort.Strings(bad)
	for _, b := range slices.Compact(bad) {
		t.Error(b)
	}
}
