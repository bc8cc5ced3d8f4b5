package kafkabook

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// modulePath is this module's path: package names in docs/design.md's table
// are relative to it ("." for the root).
const modulePath = "github.com/kafkabook/kafkabook"

// public lists the packages outside internal/ and cmd/: what users build
// on.
var public = []string{".", "runbook", "results", "report"}

// pkg is one package of the module as `go list` shows it.
type pkg struct {
	Path    string   // relative to the module: "." or "internal/engine"
	Name    string   // package name: "main" for commands
	Imports []string // the module's packages it imports (not its tests), relative
}

// TestLayout checks the module against docs/design.md's package table:
// the same packages, every import pointing down the table, and the rules
// that the table alone cannot say.
func TestLayout(t *testing.T) {
	rows, err := designTable("docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := listPackages(t, "./...")
	for _, msg := range checkLayers(rows, pkgs) {
		t.Error(msg)
	}
	t.Run("public", func(t *testing.T) {
		for _, p := range pkgs {
			if !under(p.Path, "internal") && !under(p.Path, "cmd") && !slices.Contains(public, p.Path) {
				t.Errorf("%s is public: only %v are; move it under internal/", p.Path, public)
			}
		}
	})
	t.Run("mains under cmd", func(t *testing.T) {
		for _, p := range pkgs {
			if (p.Name == "main") != under(p.Path, "cmd") {
				t.Errorf("%s is package %s: every main package is under cmd/, and only main packages are", p.Path, p.Name)
			}
		}
	})
	t.Run("no Kafka client in cluster", func(t *testing.T) {
		for _, d := range deps(t, "./internal/cluster/...") {
			if strings.HasPrefix(d, "github.com/twmb/franz-go") {
				t.Errorf("internal/cluster/... depends on %s: backends learn that brokers are ready through cluster.Config.Ready, which the caller backs with its Kafka client", d)
			}
		}
	})
	t.Run("no FUSE in runbook", func(t *testing.T) {
		for _, d := range deps(t, "./runbook") {
			if strings.HasPrefix(d, "github.com/hanwen/go-fuse") {
				t.Errorf("runbook depends on %s: it checks a document against the capabilities cmd passes in, and never probes the machine", d)
				break
			}
		}
	})
}

// checkLayers lists what breaks the table: packages it does not name,
// names of packages that do not exist, and imports that do not point to
// a lower row.
func checkLayers(rows map[string]int, pkgs []pkg) []string {
	var errs []string
	exists := map[string]bool{}
	for _, p := range pkgs {
		exists[p.Path] = true
		if _, ok := rows[p.Path]; !ok {
			errs = append(errs, fmt.Sprintf("package %s is not in docs/design.md's package table: add it to the row it belongs to", p.Path))
		}
	}
	for name := range rows {
		if !exists[name] {
			errs = append(errs, fmt.Sprintf("docs/design.md's package table names %s, which go list does not show: remove it", name))
		}
	}
	for _, p := range pkgs {
		from, ok := rows[p.Path]
		if !ok {
			continue
		}
		for _, imp := range p.Imports {
			to, ok := rows[imp]
			if !ok || to > from {
				continue
			}
			how := "above it"
			if to == from {
				how = "in its own row"
			}
			errs = append(errs, fmt.Sprintf("%s imports %s, which docs/design.md's package table has %s: imports point down the table", p.Path, imp, how))
		}
	}
	slices.Sort(errs)
	return errs
}

// tableCell is a package name in a table cell: `runbook`, `internal/engine`.
var tableCell = regexp.MustCompile("`([^`]+)`")

// designTable reads the package table of a design document: the first
// Markdown table whose first header cell is "package". It maps each
// package named in a row's first cell to the row's number, counted from
// the top.
func designTable(path string) (map[string]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rows := map[string]int{}
	in, n := false, 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		cells := strings.Split(strings.Trim(line, "|"), "|")
		switch {
		case !in && strings.HasPrefix(line, "|") && strings.TrimSpace(cells[0]) == "package":
			in = true
		case in && !strings.HasPrefix(line, "|"):
			return rows, nil
		case in && strings.Trim(cells[0], " -:") == "":
			// the delimiter row
		case in:
			n++
			for _, m := range tableCell.FindAllStringSubmatch(cells[0], -1) {
				if prev, ok := rows[m[1]]; ok {
					return nil, fmt.Errorf("%s: %s is in rows %d and %d of the package table", path, m[1], prev, n)
				}
				rows[m[1]] = n
			}
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s has no package table (a Markdown table whose first column is headed \"package\")", path)
	}
	return rows, sc.Err()
}

// listPackages is `go list` of the patterns, with each package's imports
// of this module's packages.
func listPackages(t *testing.T, patterns ...string) []pkg {
	t.Helper()
	out := goList(t, append([]string{"-f", `{{.ImportPath}} {{.Name}}{{range .Imports}} {{.}}{{end}}`}, patterns...)...)
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		p := pkg{Path: rel(f[0]), Name: f[1]}
		for _, imp := range f[2:] {
			if imp == modulePath || strings.HasPrefix(imp, modulePath+"/") {
				p.Imports = append(p.Imports, rel(imp))
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// deps lists every package the patterns' packages depend on, their
// tests left out.
func deps(t *testing.T, patterns ...string) []string {
	t.Helper()
	return strings.Fields(goList(t, append([]string{"-deps", "-f", "{{.ImportPath}}"}, patterns...)...))
}

func goList(t *testing.T, args ...string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the layout test runs `go list`: %v", err)
	}
	cmd := exec.Command(goTool, append([]string{"list"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out)
}

// rel is an import path relative to the module, "." for the module itself.
func rel(path string) string {
	if path == modulePath {
		return "."
	}
	return strings.TrimPrefix(path, modulePath+"/")
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// TestCheckLayers: the check finds an import that points up, one between
// packages of a row, a package the table lacks and a name it has too many.
func TestCheckLayers(t *testing.T) {
	rows := map[string]int{"cmd/x": 1, "internal/a": 2, "internal/b": 2, "results": 3, "gone": 4}
	pkgs := []pkg{
		{Path: "cmd/x", Imports: []string{"internal/a", "results"}},
		{Path: "internal/a", Imports: []string{"internal/b", "results"}},
		{Path: "internal/b"},
		{Path: "results", Imports: []string{"cmd/x"}},
		{Path: "new"},
	}
	want := []string{
		"docs/design.md's package table names gone, which go list does not show: remove it",
		"internal/a imports internal/b, which docs/design.md's package table has in its own row: imports point down the table",
		"package new is not in docs/design.md's package table: add it to the row it belongs to",
		"results imports cmd/x, which docs/design.md's package table has above it: imports point down the table",
	}
	if got := checkLayers(rows, pkgs); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDesignTable: a row's packages share its number, the delimiter row
// does not count, and the table ends at the first line that is not a row.
func TestDesignTable(t *testing.T) {
	path := t.TempDir() + "/design.md"
	doc := "# x\n\n| other | table |\n| --- | --- |\n| `no` | |\n\n" +
		"| package | holds |\n| --- | --- |\n| `cmd/a`, `cmd/b` | mains |\n| `.` (root) | `compose.yaml` |\n\n| `after` | |\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := designTable(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"cmd/a": 1, "cmd/b": 1, ".": 2}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("rows %v, want %v", rows, want)
	}
}
