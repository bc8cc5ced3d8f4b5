package driver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cachedir"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// TestJavaDriverChecks holds the java and spring drivers to what a cluster
// run cannot see: they compile against the default releases with every
// javac lint warning an error, and the java driver's unit tests
// (javatest/: the JSON lines it writes, its pacing, its spec parsing) pass.
// It needs a JDK and Maven but no cluster, so it runs in the short lane.
func TestJavaDriverChecks(t *testing.T) {
	requireCommands(t, "java", "javac", "mvn")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cache, err := cachedir.Dir()
	if err != nil {
		t.Fatal(err)
	}
	javaJars, err := checkLibs(ctx, cache, "java-"+DefaultJava, javaSource, javaLibs(DefaultJava))
	if err != nil {
		t.Fatal(err)
	}
	springJars, err := checkLibs(ctx, cache, "spring-"+DefaultSpring, springSource, springLibs(DefaultSpring))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("jars: %s and %s", javaJars, springJars)
	work := t.TempDir()
	javaSrcs, err := writeSources(javaFiles, "java/*.java", work)
	if err != nil {
		t.Fatal(err)
	}
	springSrcs, err := writeSources(springFiles, "spring/*.java", work)
	if err != nil {
		t.Fatal(err)
	}
	testSrcs, err := filepath.Glob(filepath.Join("javatest", "*.java"))
	if err != nil || len(testSrcs) == 0 {
		t.Fatalf("no unit tests in javatest/: %v", err)
	}
	for i, s := range testSrcs {
		if testSrcs[i], err = filepath.Abs(s); err != nil {
			t.Fatal(err)
		}
	}

	// The java driver with its tests against kafka-clients, then the
	// spring driver (the java driver's files and its own) against
	// spring-kafka's class path, as the installs compile them.
	javaCP := filepath.Join(work, "java") + string(os.PathListSeparator) + filepath.Join(javaJars, "*")
	javac(ctx, t, work, "java", filepath.Join(javaJars, "*"), slices.Concat(javaSrcs, testSrcs))
	javac(ctx, t, work, "spring", filepath.Join(springJars, "*"), slices.Concat(javaSrcs, springSrcs))

	var classes []string
	for _, s := range testSrcs {
		if name := strings.TrimSuffix(filepath.Base(s), ".java"); strings.HasSuffix(name, "Test") {
			classes = append(classes, name)
		}
	}
	cmd := exec.CommandContext(ctx, "java", append([]string{"-cp", javaCP, "TestRunner"}, classes...)...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "KAFKABOOK_REFUSAL_CASES="+refusalCases(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the java driver's unit tests failed (%v):\n%s", err, out)
	}
	t.Logf("java driver unit tests: %s", tailLines(string(out), 1))
}

// javac compiles srcs against classpath into work/out with every lint
// warning an error (-Xlint:all -Werror) and fails the test with javac's
// diagnostics, by their keys whatever the locale (-XDrawDiagnostics), when
// they do not compile cleanly. One warning is let through: a javac after
// 17 says that sun.misc.Signal (Member.onTerm: the JDK's only way to catch
// SIGTERM) is internal API, and under --release nothing turns that off
// (-XDignore.symbol.file silences javac 17, which install-deps.sh
// installs); when javac says nothing else, the sources are compiled again
// without -Werror.
func javac(ctx context.Context, t *testing.T, work, out, classpath string, srcs []string) {
	t.Helper()
	args := append(append(append([]string{}, javacFlags...), "-Xlint:all", "-XDrawDiagnostics", "-d", out, "-cp", classpath), srcs...)
	run := func(args []string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "javac", args...)
		cmd.Dir = work
		return cmd.CombinedOutput()
	}
	b, err := run(append([]string{"-Werror"}, args...))
	if err != nil && onlySignalWarnings(string(b)) {
		b, err = run(args)
	}
	if err != nil {
		t.Fatalf("javac -Xlint:all -Werror (%s) failed: %v\n%s", out, err, b)
	}
}

// onlySignalWarnings says whether javac's diagnostics are warnings that
// sun.misc.Signal is internal API, and -Werror's error, and nothing else.
func onlySignalWarnings(diags string) bool {
	seen := false
	for _, l := range strings.Split(diags, "\n") {
		switch {
		case strings.HasSuffix(l, ": compiler.warn.sun.proprietary: sun.misc.Signal"):
			seen = true
		case strings.Contains(l, "compiler.err.warnings.and.werror"):
		case strings.Contains(l, "compiler."):
			return false
		}
	}
	return seen
}

// checkLibs is a directory holding the jars coords resolve to: the libs of
// the driver installed as <cache>/driver-<name> when that install is of
// source (its libs are then the ones coords resolve to), else a resolution
// of the check's own in the cache, made once per list of artifacts. A warm
// machine so runs no Maven, however often the drivers' sources change.
func checkLibs(ctx context.Context, cache, name string, source []byte, coords []string) (string, error) {
	if dir := filepath.Join(cache, "driver-"+name); installed(dir, source) {
		return filepath.Join(dir, "libs"), nil
	}
	list := []byte(strings.Join(coords, "\n"))
	sum := sha256.Sum256(list)
	dir := filepath.Join(cache, "check-libs-"+name+"-"+hex.EncodeToString(sum[:4]))
	if installed(dir, list) {
		return filepath.Join(dir, "libs"), nil
	}
	err := build(cache, dir, list, func(tmp string) error {
		return kafkadist.Resolve(ctx, tmp, filepath.Join(tmp, "libs"), coords...)
	})
	return filepath.Join(dir, "libs"), err
}

// requireCommands ends the test, as testcluster.Lacks does, when a
// command it needs is not installed.
func requireCommands(t *testing.T, cmds ...string) {
	t.Helper()
	var missing []string
	for _, c := range cmds {
		if _, err := exec.LookPath(c); err != nil {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return
	}
	testcluster.Lacks(t, fmt.Sprintf("this test needs %s (install-deps.sh installs them)", strings.Join(missing, ", ")))
}
