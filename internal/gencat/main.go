package gencat

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// A Generator is one catalogue generator's main: the program it runs
// inside a client or a release (written to a scratch directory once), the
// versions it catalogues when none are named, and what it does for each.
type Generator struct {
	Name     string          // the command, for errors: genkafkaconfig
	Out      string          // the default -out directory
	Program  string          // the program's file name: DumpConfig.java
	Source   []byte          // the program
	Versions func() []string // the versions catalogued when none are named
	// Each writes the catalogue files of one version into out; program
	// is the program's path in the scratch directory dir.
	Each func(ctx context.Context, dir, program, version, out string) error
}

// Main parses -out and the versions, runs Each for every version and
// exits 1 with the error on the first that fails.
func Main(g Generator) {
	out := flag.String("out", g.Out, "directory of the catalogue files")
	flag.Parse()
	versions := flag.Args()
	if len(versions) == 0 {
		versions = g.Versions()
	}
	if err := g.run(context.Background(), *out, versions); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", g.Name, err)
		os.Exit(1)
	}
}

func (g Generator) run(ctx context.Context, out string, versions []string) error {
	dir, program, remove, err := Scratch(g.Program, g.Source)
	if err != nil {
		return err
	}
	defer remove()
	for _, v := range versions {
		if err := g.Each(ctx, dir, program, v, out); err != nil {
			return err
		}
	}
	return nil
}

// JavaCatalogues compiles the Java program (a Scratch path) against jars
// and runs its class main once per kind (the kind its only argument),
// writing each run's output under head(kind) to out/file(kind).
func JavaCatalogues(ctx context.Context, dir, program, version, jars, main string, kinds []string, out string,
	file, head func(kind string) string, what string) error {
	runs := make([][]string, len(kinds))
	for i, k := range kinds {
		runs[i] = []string{k}
	}
	lists, err := Java(ctx, program, filepath.Join(dir, version), filepath.Join(jars, "*"), main, runs...)
	if err != nil {
		return err
	}
	for i, kind := range kinds {
		if err := Write(filepath.Join(out, file(kind)), head(kind)+lists[i], what); err != nil {
			return err
		}
	}
	return nil
}
