package driver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cachedir"
	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// pythonPackage is the librdkafka driver's directory: the driver, its
// pyproject.toml (the pins and the linter's configuration) and its unit
// tests (tests/).
const pythonPackage = "librdkafka"

// pyprojectPin finds a pinned requirement of pyproject.toml: "name==version".
var pyprojectPin = regexp.MustCompile(`"(confluent-kafka|ruff)==([^"]+)"`)

// TestPythonDriverChecks lints the librdkafka driver with the ruff that
// pyproject.toml pins and runs its unit tests, which need confluent-kafka
// but no broker: it belongs to the fast lane (-short) and runs there. Its
// virtual environment is made once per pinned version and Python, in
// kafkabook's cache; a warm run takes a few seconds. Without python3 and
// its venv module it skips, and fails under CI=true.
func TestPythonDriverChecks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	pins := readPyprojectPins(t, filepath.Join(pythonPackage, "pyproject.toml"))
	if pins["confluent-kafka"] != DefaultLibrdkafka {
		t.Errorf("%s/pyproject.toml pins confluent-kafka==%s and DefaultLibrdkafka is %s: the driver is checked against the release it runs by default; make them one",
			pythonPackage, pins["confluent-kafka"], DefaultLibrdkafka)
	}
	version, err := pythonWithVenv(ctx, "the librdkafka driver's checks run under it")
	if err != nil {
		testcluster.Lacks(t, err.Error())
	}
	venv := pythonCheckVenv(ctx, t, version, pins)
	dir, err := filepath.Abs(pythonPackage)
	if err != nil {
		t.Fatal(err)
	}
	// ruff finds its configuration in pyproject.toml; --no-cache and -B
	// keep both from writing into the source tree.
	runPythonCheck(ctx, t, dir, nil, "ruff", filepath.Join(venv, "bin", "ruff"), "check", "--no-cache", ".")
	runPythonCheck(ctx, t, dir, []string{"KAFKABOOK_REFUSAL_CASES=" + refusalCases(t)},
		"unit tests", filepath.Join(venv, "bin", "python"), "-I", "-B", "-m", "unittest", "discover", "-s", "tests", "-t", "tests")
}

// readPyprojectPins returns pyproject.toml's pinned confluent-kafka and ruff.
func readPyprojectPins(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pins := map[string]string{}
	for _, m := range pyprojectPin.FindAllStringSubmatch(string(b), -1) {
		pins[m[1]] = m[2]
	}
	for _, name := range []string{"confluent-kafka", "ruff"} {
		if pins[name] == "" {
			t.Fatalf("%s pins no %s (\"%s==VERSION\")", path, name, name)
		}
	}
	return pins
}

// pythonCheckVenv returns a virtual environment of kafkabook's cache
// holding the pinned confluent-kafka and ruff, made if it is not there
// yet. Its name carries every version it depends on, so a new pin or
// Python makes a new one; build makes it whole or not at all.
func pythonCheckVenv(ctx context.Context, t *testing.T, python string, pins map[string]string) string {
	t.Helper()
	cache, err := cachedir.Dir()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("check-librdkafka-python-%s-confluent-kafka-%s-ruff-%s", python, pins["confluent-kafka"], pins["ruff"])
	dir := filepath.Join(cache, name)
	venv := filepath.Join(dir, "venv")
	key := []byte(name)
	if installed(dir, key) {
		return venv
	}
	t.Logf("making %s (confluent-kafka %s and ruff %s from PyPI)", dir, pins["confluent-kafka"], pins["ruff"])
	err = build(cache, dir, key, func(tmp string) error {
		if err := run(ctx, tmp, "python3", "-m", "venv", "venv"); err != nil {
			return err
		}
		// bin/ruff is ruff's binary, not a script naming the temporary
		// directory's interpreter, so it still runs once build renames the
		// directory; python is called through its link.
		return run(ctx, tmp, filepath.Join(tmp, "venv", "bin", "python"), "-m", "pip", "install",
			"--disable-pip-version-check", "--no-input", "-q", "--only-binary=:all:",
			"confluent-kafka=="+pins["confluent-kafka"], "ruff=="+pins["ruff"])
	})
	if err != nil {
		t.Fatalf("making the driver's check environment: %v", err)
	}
	return venv
}

// runPythonCheck runs one check in dir, with env added to the environment,
// and fails the test with its output when it fails; otherwise logs its
// summary, its last lines. A check that
// takes minutes hangs: it is killed, and its output says where.
func runPythonCheck(ctx context.Context, t *testing.T, dir string, env []string, what, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second // a driver the tests started may hold the output open
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Errorf("%s of the librdkafka driver failed (%v):\n%s", what, err, out.String())
		return
	}
	t.Logf("%s: %s (%v)", what, strings.ReplaceAll(tailLines(out.String(), 3), "\n", " "), time.Since(start).Round(time.Millisecond))
}
