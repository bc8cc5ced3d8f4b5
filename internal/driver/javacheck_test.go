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
// javac lint warning an error, the java driver's unit tests (javatest/:
// the JSON lines it writes, its pacing, its spec parsing, its loop over a
// Sender) pass, and so do the spring driver's (javatest/spring/: its
// producer on Spring's template, without a broker). It needs a JDK and
// Maven but no cluster, so it runs in the short lane.
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
	testSrcs := javaTests(t, "javatest")
	springTests := javaTests(t, filepath.Join("javatest", "spring"))
	harness := slices.DeleteFunc(slices.Clone(testSrcs), func(s string) bool { return testClass(s) != "" })

	// The java driver with its tests against kafka-clients, then the
	// spring driver (the java driver's files and its own) with its tests
	// and the runner against spring-kafka's class path, as the installs
	// compile them.
	javac(ctx, t, work, "java", filepath.Join(javaJars, "*"), slices.Concat(javaSrcs, testSrcs))
	javac(ctx, t, work, "spring", filepath.Join(springJars, "*"), slices.Concat(javaSrcs, springSrcs, harness, springTests))

	runJavaTests(ctx, t, work, "java", javaJars, testSrcs, "KAFKABOOK_REFUSAL_CASES="+refusalCases(t))
	runJavaTests(ctx, t, work, "spring", springJars, springTests)
}

// javaTests are the absolute paths of the .java files of dir (the tests,
// the runner and its checks); none is an error.
func javaTests(t *testing.T, dir string) []string {
	t.Helper()
	srcs, err := filepath.Glob(filepath.Join(dir, "*.java"))
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no unit tests in %s/: %v", dir, err)
	}
	for i, s := range srcs {
		if srcs[i], err = filepath.Abs(s); err != nil {
			t.Fatal(err)
		}
	}
	return srcs
}

// testClass is the test class a source file holds (FooTest.java: FooTest),
// or "" for the runner and its helpers.
func testClass(src string) string {
	if name := strings.TrimSuffix(filepath.Base(src), ".java"); strings.HasSuffix(name, "Test") {
		return name
	}
	return ""
}

// runJavaTests runs the test classes of srcs, compiled into work/out,
// with TestRunner on the class path of jars, and fails the test with the
// runner's output when one fails.
func runJavaTests(ctx context.Context, t *testing.T, work, out, jars string, srcs []string, env ...string) {
	t.Helper()
	var classes []string
	for _, s := range srcs {
		if c := testClass(s); c != "" {
			classes = append(classes, c)
		}
	}
	cp := filepath.Join(work, out) + string(os.PathListSeparator) + filepath.Join(jars, "*")
	// The client's own log (the spring driver's slf4j-simple binding) only
	// buries a failure's lines: errors alone.
	args := []string{"-Dorg.slf4j.simpleLogger.defaultLogLevel=error", "-cp", cp, "TestRunner"}
	cmd := exec.CommandContext(ctx, "java", append(args, classes...)...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the %s driver's unit tests failed (%v):\n%s", out, err, b)
	}
	summary := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, " passed, ") {
			summary = l // the runner's last word; the client's log may come after it
		}
	}
	t.Logf("%s driver unit tests: %s", out, summary)
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
