package runbook

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestRegistryComplete: every directive value a file of this package
// declares (a var holding a *Directive: &Directive{...}, faultDirective(...)
// or groupDirective(...)) is listed in Directives, so that a new
// directive's file cannot be forgotten there.
func TestRegistryComplete(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := gotoken.NewFileSet()
	declared := map[string]string{} // var name → file
	var listed []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != gotoken.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					name := vs.Names[i].Name
					if name == "Directives" {
						for _, e := range v.(*ast.CompositeLit).Elts {
							listed = append(listed, e.(*ast.Ident).Name)
						}
						continue
					}
					if isDirectiveValue(v) {
						declared[name] = f
					}
				}
			}
		}
	}
	in := map[string]bool{}
	for _, n := range listed {
		in[n] = true
	}
	for name, f := range declared {
		if !in[name] {
			t.Errorf("%s declares the directive %s, which is not listed in Directives (directives.go)", f, name)
		}
	}
	if len(listed) != len(Directives) || len(declared) != len(Directives) {
		t.Errorf("%d directive values declared, %d listed, %d registered", len(declared), len(listed), len(Directives))
	}
}

// isDirectiveValue says whether an expression makes a *Directive.
func isDirectiveValue(e ast.Expr) bool {
	switch v := e.(type) {
	case *ast.UnaryExpr:
		if cl, ok := v.X.(*ast.CompositeLit); ok {
			id, ok := cl.Type.(*ast.Ident)
			return ok && id.Name == "Directive"
		}
	case *ast.CallExpr:
		id, ok := v.Fun.(*ast.Ident)
		return ok && strings.HasSuffix(id.Name, "Directive") // faultDirective, groupDirective, ...
	}
	return false
}
