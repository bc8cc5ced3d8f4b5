package driver

import (
	"archive/zip"
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/kafkabook/kafkabook/internal/kafkadist"
)

// javaFiles are the java driver's sources (KafkabookDriver.java, the
// producer and the entry point; Sender.java, what its loop sends through;
// Member.java, the consumer group member; Transform.java), compiled
// together.
//
//go:embed java/*.java
var javaFiles embed.FS

// javaSource is what an install's hash covers: every source file's name
// and text, in name order, and the artifacts resolved with kafka-clients.
var javaSource = append(sources(javaFiles, "java/*.java"), "\x00libs:"+strings.Join(javaDeps, ",")...)

// sources is the name and text of every file of fsys matching pattern, in
// name order.
func sources(fsys embed.FS, pattern string) []byte {
	var all []byte
	names, _ := fs.Glob(fsys, pattern)
	for _, n := range names {
		b, _ := fsys.ReadFile(n)
		all = append(append(append(all, n...), 0), b...)
	}
	return all
}

// SQLiteJDBC is the xerial sqlite-jdbc release the java driver's member
// keeps its store with.
const SQLiteJDBC = "3.54.1.0"

// jsonLib is the JSON library the java and spring drivers read their spec
// with (Json.parseObject): Gson, a maintained parser whose cost at start-up
// nobody notices. On a busy 2-core machine, with class data sharing, the
// driver's first parse took 10 ms with Gson against 1 ms with the
// hand-written parser it replaced (jackson-jr: 18 ms; Jackson databind: 97
// ms, which put 55 ms on the start), and the JVM's start to
// startup_complete stayed at about 240 ms (medians of 80 runs each: 232
// with Gson, 246 without, inside the runs' own spread).
const jsonLib = "com.google.code.gson:gson:2.15.0"

// javaDeps are the artifacts the java driver resolves besides
// kafka-clients: sqlite-jdbc (the member's store) and the JSON library.
var javaDeps = []string{"org.xerial:sqlite-jdbc:" + SQLiteJDBC, jsonLib}

// javaLibs are the artifacts the java driver resolves, with their runtime
// dependencies: kafka-clients at version and javaDeps. The driver check
// (javacheck_test.go) compiles against the same.
func javaLibs(version string) []string {
	return append([]string{"org.apache.kafka:kafka-clients:" + version}, javaDeps...)
}

// javacFlags are what every compile of the drivers passes. The install
// adds -nowarn: it compiles against whichever release a runbook asks for,
// which the check never saw (a later one may deprecate what the driver
// calls), and a warning is no reason to refuse a run. The check
// (javacheck_test.go) adds -Xlint:all -Werror, against the defaults.
var javacFlags = []string{"--release", "17", "-XDignore.symbol.file"}

// DefaultJava is the kafka-clients version of `java` when neither the
// runbook nor the cluster says one (the engine passes the cluster's Kafka
// version).
const DefaultJava = kafkadist.Default

// javaDriver is the java driver: kafka-clients and its runtime
// dependencies resolved from Maven Central with mvn into
// driver-java-<version>/libs, and the driver compiled against them into
// classes/.
var javaDriver = jvmDriver{
	name: "java", library: "kafka-clients", artifact: "org.apache.kafka:kafka-clients", deps: javaDeps,
	def: DefaultJava, releases: "3.9.1, 4.3.1", source: javaSource, libs: javaLibs,
	compiles: "the driver", files: []sourceFiles{{javaFiles, "java/*.java"}},
}

// javaArgv runs the driver from dir, with its class archive when there is
// one and shared is true.
func javaArgv(dir string, shared bool) []string {
	argv := []string{"java"}
	if jsa := filepath.Join(dir, "driver.jsa"); shared {
		if _, err := os.Stat(jsa); err == nil {
			argv = append(argv, "-XX:SharedArchiveFile="+jsa)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "native", sqliteLib)); err == nil {
		// sqlite-jdbc loads its library from here instead of extracting
		// it into the temporary directory at every start (and leaving it
		// there when the member is killed).
		argv = append(argv, "-Dorg.sqlite.lib.path="+filepath.Join(dir, "native"), "-Dorg.sqlite.lib.name="+sqliteLib)
	}
	// With an SLF4J binding on the class path (the spring driver's
	// slf4j-simple), the client's warnings and errors go to stderr and
	// nothing below; without one these properties are unread.
	// kafka-clients' AbstractConfig logs at INFO the properties it was
	// given and does not use ("These configurations '[value-serializer]'
	// were supplied but are not used yet.", in the class files of 3.9.1
	// to 4.3.1): that logger at INFO too.
	argv = append(argv, "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dorg.slf4j.simpleLogger.log.org.apache.kafka.common.config.AbstractConfig=info")
	// Spring logs through Apache Commons Logging 1.3, whose SLF4J route
	// drops every line logged with an exception under slf4j-simple 1.7
	// (and 2.0): the DefaultErrorHandler's "exhausted for" lines among
	// them. Its own SimpleLog writes them, with the exception, to stderr.
	argv = append(argv, "-Dorg.apache.commons.logging.LogFactory=org.apache.commons.logging.impl.LogFactoryImpl",
		"-Dorg.apache.commons.logging.Log=org.apache.commons.logging.impl.SimpleLog",
		"-Dorg.apache.commons.logging.simplelog.defaultlog=warn")
	cp := filepath.Join(dir, "driver.jar") + string(os.PathListSeparator) + filepath.Join(dir, "libs", "*")
	return append(argv, "-cp", cp, "KafkabookDriver")
}

// writeSources writes the files of fsys matching pattern into dir and
// returns their names there.
func writeSources(fsys embed.FS, pattern, dir string) ([]string, error) {
	names, _ := fs.Glob(fsys, pattern)
	var out []string
	for _, n := range names {
		b, _ := fsys.ReadFile(n)
		dst := filepath.Join(dir, filepath.Base(n))
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return nil, err
		}
		out = append(out, dst)
	}
	return out, nil
}

// sqliteLib is the name of sqlite-jdbc's native library for Linux.
const sqliteLib = "libsqlitejdbc.so"

// extractSQLiteNative copies sqlite-jdbc's native library for this
// machine out of its jar into dir/native, once at install.
func extractSQLiteNative(dir string) error {
	jars, _ := filepath.Glob(filepath.Join(dir, "libs", "sqlite-jdbc-*.jar"))
	if len(jars) != 1 {
		return fmt.Errorf("no sqlite-jdbc jar in libs")
	}
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	if runtime.GOOS != "linux" || arch == "" {
		return fmt.Errorf("no native library for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	zr, err := zip.OpenReader(jars[0])
	if err != nil {
		return err
	}
	defer zr.Close()
	f, err := zr.Open("org/sqlite/native/Linux/" + arch + "/" + sqliteLib)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := os.MkdirAll(filepath.Join(dir, "native"), 0o755); err != nil {
		return err
	}
	out, err := os.Create(filepath.Join(dir, "native", sqliteLib))
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, f); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// archiveClasses runs the driver once as client's producer (java, or
// spring: Spring Kafka's template), with no broker and nothing to send, to
// dump the classes it loads into a class data sharing archive
// (driver.jsa): the JVM then maps them instead of loading them, which
// about halves the driver's start-up.
func archiveClasses(ctx context.Context, dir, client string) error {
	argv := javaArgv(dir, false)
	jsa := filepath.Join(dir, "driver.jsa")
	argv = append([]string{argv[0], "-XX:ArchiveClassesAtExit=" + jsa}, argv[1:]...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(`{"client":"` + client + `","topic":"t","bootstrap_servers":["127.0.0.1:9"],"count":0}` + "\n" + `{"command":"start"}` + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(jsa)
		return fmt.Errorf("%v: %s", err, tailLines(string(out), 5))
	}
	return nil
}
