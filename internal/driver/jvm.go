package driver

import (
	"context"
	"embed"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kafkabook/kafkabook/internal/kafkadist"
)

// jvmDriver is what tells the java driver's install from the spring
// driver's: both resolve their library and its runtime dependencies from
// Maven Central with mvn into driver-<name>-<version>/libs, compile the
// driver's sources against them with javac and archive the classes it
// loads at start-up.
type jvmDriver struct {
	name     string   // the driver's name, "java" or "spring", in its messages and its directory
	library  string   // what the version is of: kafka-clients, spring-kafka
	artifact string   // the library's Maven coordinates, less the version
	deps     []string // the artifacts resolved besides the library
	def      string   // the library's version when the ref names none
	releases string   // versions Maven Central has, for one it lacks
	source   []byte   // what an install's hash covers
	libs     func(version string) []string
	compiles string        // what the compile is of, in its progress line
	files    []sourceFiles // the sources compiled, in order
}

// sourceFiles are the files of fsys matching pattern.
type sourceFiles struct {
	fsys    embed.FS
	pattern string
}

// install installs the driver ref names into cache, once per library
// version and driver source, and returns how to run it.
func (j jvmDriver) install(ctx context.Context, cache string, ref Ref, progress func(string, ...any)) (Driver, error) {
	if ref.Version == "" {
		ref.Version = j.def
	}
	dir := filepath.Join(cache, "driver-"+j.name+"-"+ref.Version)
	d := Driver{Ref: ref, Dir: dir, Argv: javaArgv(dir, true)}
	if err := need("java", "openjdk-17-jre-headless", "the "+j.name+" driver runs on a JVM"); err != nil {
		return d, err
	}
	if installed(dir, j.source) {
		return d, nil
	}
	if err := need("javac", "openjdk-17-jdk-headless", "the "+j.name+" driver is compiled on this machine with the JDK's javac"); err != nil {
		return d, err
	}
	if err := need("mvn", "maven", j.library+" comes from Maven Central through Maven"); err != nil {
		return d, err
	}
	err := build(cache, dir, j.source, func(tmp string) error {
		progress("%s driver: resolving %s:%s, %s from Maven Central", j.name, j.artifact, ref.Version, strings.Join(j.deps, ", "))
		err := kafkadist.Resolve(ctx, tmp, filepath.Join(tmp, "libs"), j.libs(ref.Version)...)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "Could not find artifact") || strings.Contains(msg, "could not be resolved") || strings.Contains(msg, "was not found in") {
				return fmt.Errorf("%s %s is not on Maven Central: releases look like %s", j.library, ref.Version, j.releases)
			}
			return err
		}
		progress("%s driver: compiling %s against %s %s", j.name, j.compiles, j.library, ref.Version)
		var srcs []string
		for _, f := range j.files {
			more, err := writeSources(f.fsys, f.pattern, tmp)
			if err != nil {
				return err
			}
			srcs = append(srcs, more...)
		}
		if err := extractSQLiteNative(tmp); err != nil {
			progress("%s driver: sqlite-jdbc will extract its native library at each start: %v", j.name, err)
		}
		args := append(append(append([]string{}, javacFlags...), "-nowarn", "-d", "classes", "-cp", filepath.Join("libs", "*")), srcs...)
		if err := run(ctx, tmp, "javac", args...); err != nil {
			return err
		}
		return run(ctx, tmp, "jar", "cf", "driver.jar", "-C", "classes", ".")
	})
	if err != nil {
		return d, fmt.Errorf("install the %s driver (%s %s): %w", j.name, j.library, ref.Version, err)
	}
	progress("%s driver: archiving the classes it loads at start-up (class data sharing)", j.name)
	if err := archiveClasses(ctx, dir, ref.Client); err != nil {
		progress("%s driver: no class archive, start-up will be slower: %v", j.name, err)
	}
	d.Argv = javaArgv(dir, true) // with what the install made: the class archive, the native library
	progress("%s driver: %s %s ready in %s", j.name, j.library, ref.Version, dir)
	return d, nil
}
