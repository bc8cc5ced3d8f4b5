// Package gencat holds what the catalogue generators (cmd/genkafkaconfig,
// cmd/genclientconfig, cmd/genrdkafkaconfig) share: a scratch directory
// holding the program they run inside a client or a release, running it
// with its error output kept, and writing one catalogue file with progress.
// The catalogues come from Kafka and the clients themselves; this package
// is only the plumbing around asking them.
package gencat

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Progress prints one progress line to stderr, as kafkabook's own commands
// do.
func Progress(format string, args ...any) { fmt.Fprintf(os.Stderr, "… "+format+"\n", args...) }

// Scratch makes a temporary directory holding the program src under name,
// and returns the directory, the program's path and the function that
// removes them.
func Scratch(name string, src []byte) (dir, path string, remove func(), err error) {
	dir, err = os.MkdirTemp("", "kafkabook-gencat-")
	if err != nil {
		return "", "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, name)
	if err := os.WriteFile(path, src, 0o644); err != nil {
		remove()
		return "", "", nil, err
	}
	return dir, path, remove, nil
}

// Output runs name with args and returns its standard output, or an error
// holding its standard error. A missing JDK tool says which package to
// install.
func Output(ctx context.Context, name string, args ...string) (string, error) {
	if _, err := exec.LookPath(name); err != nil && (name == "javac" || name == "java") {
		return "", fmt.Errorf("%s not found: install a JDK (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless)", name)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %v: %s", filepath.Base(name), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// Java compiles the Java program src (a path in a Scratch directory)
// against jars into classes, then runs its class main once per argument
// list in runs, returning each run's output in order.
func Java(ctx context.Context, src, classes, jars, main string, runs ...[]string) ([]string, error) {
	if _, err := Output(ctx, "javac", "-d", classes, "-cp", jars, src); err != nil {
		return nil, err
	}
	cp := classes + string(os.PathListSeparator) + jars
	outs := make([]string, 0, len(runs))
	for _, args := range runs {
		out, err := Output(ctx, "java", append([]string{"-cp", cp, main}, args...)...)
		if err != nil {
			return nil, err
		}
		outs = append(outs, out)
	}
	return outs, nil
}

// Write writes one catalogue file and says how many entries it holds:
// its lines, less the header lines starting with '#'.
func Write(name, text, what string) error {
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		return err
	}
	n := 0
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			n++
		}
	}
	Progress("wrote %s (%d %s)", name, n, what)
	return nil
}
