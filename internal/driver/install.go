package driver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cachedir"
	"github.com/kafkabook/kafkabook/internal/launch"
)

// Driver is an installed driver: the command that runs it.
type Driver struct {
	Ref  Ref      // its version resolved
	Dir  string   // where it is installed
	Argv []string // the command that runs it
	Env  []string // its environment; nil: kafkabook's
	// Launcher starts it where the cluster's clients run; nil: on this
	// machine (launch.Host).
	Launcher launch.Launcher
}

// Install builds the driver ref names into kafkabook's cache, once per
// client version and driver source, and returns how to run it. progress
// gets a line for each slow step.
func Install(ctx context.Context, ref Ref, progress func(string, ...any)) (Driver, error) {
	cache, err := cachedir.Dir()
	if err != nil {
		return Driver{}, err
	}
	switch ref.Client {
	case "java":
		return javaDriver.install(ctx, cache, ref, progress)
	case "librdkafka":
		return installLibrdkafka(ctx, cache, ref, progress)
	case "spring":
		return springDriver.install(ctx, cache, ref, progress)
	}
	_, err = ParseRef(ref.Client)
	return Driver{}, err
}

// installed says whether dir holds a finished install of source: its
// "complete" file names the source's hash.
func installed(dir string, source []byte) bool {
	b, err := os.ReadFile(filepath.Join(dir, "complete"))
	return err == nil && strings.TrimSpace(string(b)) == sourceHash(source)
}

// sourceHash names a driver's source and the layout of its install
// (installLayout), so that a kafkabook whose driver or build differs
// rebuilds it.
func sourceHash(source []byte) string {
	h := sha256.New()
	h.Write([]byte(installLayout))
	h.Write(source)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// installLayout changes when an install's files change (driver.jar and the
// class archive came in 2).
const installLayout = "2"

// build makes dir anew through a temporary directory beside it that fill
// populates, so that an interrupted build leaves nothing half done under
// the final name.
func build(cache, dir string, source []byte, fill func(tmp string) error) error {
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(cache, "."+filepath.Base(dir)+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := fill(tmp); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "complete"), []byte(sourceHash(source)+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// run runs a build command, its output kept for the error.
func run(ctx context.Context, dir string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s %s failed: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, tailLines(out.String(), 15))
	}
	return nil
}

// need says what to install when a command is missing.
func need(cmd, pkg, why string) error {
	if _, err := exec.LookPath(cmd); err != nil {
		return fmt.Errorf("%s not found: %s; install it (Debian/Ubuntu: apt-get install %s)", cmd, why, pkg)
	}
	return nil
}

// tailLines returns the last n lines of s.
func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
