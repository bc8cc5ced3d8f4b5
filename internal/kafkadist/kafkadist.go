// Package kafkadist is the Apache Kafka distribution kafkabook runs: which
// release, and the directory of its jars, resolved from Maven Central into
// the cache once per release (or taken from an unpacked distribution at
// KAFKA_HOME). The local backend runs its JVMs on these jars, the Docker
// backend builds its image from them, and tools that read Kafka's own
// classes (its configuration catalogue) find them here.
package kafkadist

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cachedir"
)

// Default is the Kafka release used when none is asked for: the one the
// acks article ran.
const Default = "4.3.1"

var versionRE = regexp.MustCompile(`^\d+\.\d+\.\d+$`)

// Progress receives one-line progress messages while a release is
// resolved (poll.Progress and cluster.Progress have this shape).
type Progress = func(format string, args ...any)

// Dist is an installed Kafka distribution: a directory of jars.
type Dist struct {
	Version string
	Libs    string // directory holding every runtime jar
	Source  string // "maven" or "KAFKA_HOME"
}

// Jars returns the directory holding every runtime jar of Kafka release
// version ("" for Default), installing the release into the cache first
// when it is not there yet (see Install).
func Jars(ctx context.Context, version string, progress Progress) (string, error) {
	d, err := Install(ctx, version, progress)
	return d.Libs, err
}

// Install makes Kafka version ("" for Default) available and returns where
// its jars are. KAFKA_HOME, when set, wins; otherwise the jars come from
// Maven Central into the cache, once per version.
func Install(ctx context.Context, version string, progress Progress) (Dist, error) {
	if home := os.Getenv("KAFKA_HOME"); home != "" {
		return fromHome(home, version)
	}
	if version == "" {
		version = Default
	}
	if !versionRE.MatchString(version) {
		return Dist{}, fmt.Errorf("kafka version %q is not a release number like %s", version, Default)
	}
	cache, err := cachedir.Dir()
	if err != nil {
		return Dist{}, err
	}
	dir := filepath.Join(cache, "kafka-"+version)
	libs := filepath.Join(dir, "libs")
	if done, err := os.ReadFile(filepath.Join(dir, "complete")); err == nil && string(done) == completeMark(version) {
		return Dist{Version: version, Libs: libs, Source: "maven"}, nil
	}
	if _, err := exec.LookPath("mvn"); err != nil {
		return Dist{}, errors.New("neither Maven (mvn) nor KAFKA_HOME is available: install Maven (apt-get install maven) or set KAFKA_HOME to an unpacked Kafka distribution")
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return Dist{}, err
	}
	tmp, err := os.MkdirTemp(cache, ".kafka-"+version+"-")
	if err != nil {
		return Dist{}, err
	}
	defer os.RemoveAll(tmp)
	progress("resolving Kafka %s from Maven Central", version)
	tmpLibs := filepath.Join(tmp, "libs")
	// The broker, and Kafka's command-line tools (kafka-features.sh and
	// the others live in kafka-tools), as the distribution's libs hold
	// them.
	pom := pomFor("org.apache.kafka:kafka_2.13:"+version, "org.apache.kafka:kafka-tools:"+version)
	if err := mvnCopy(ctx, tmp, pom, tmpLibs); err != nil {
		if strings.Contains(err.Error(), "Could not find artifact") || strings.Contains(err.Error(), "could not be resolved") {
			return Dist{}, fmt.Errorf("kafka %s is not on Maven Central (org.apache.kafka:kafka_2.13:%s); releases look like 4.0.0, 4.3.1", version, version)
		}
		return Dist{}, err
	}
	// The broker logs through SLF4J; without a binding to log4j2 it logs
	// nothing, so add the binding matching the slf4j-api and log4j-core it
	// brought.
	binding, err := slf4jBinding(tmpLibs)
	if err != nil {
		return Dist{}, err
	}
	progress("adding %s", strings.Join(binding, ", "))
	if err := mvnCopy(ctx, tmp, pomFor(binding...), tmpLibs); err != nil {
		return Dist{}, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "complete"), []byte(completeMark(version)), 0o644); err != nil {
		return Dist{}, err
	}
	os.RemoveAll(dir) // an incomplete earlier attempt
	if err := os.Rename(tmp, dir); err != nil {
		return Dist{}, err
	}
	return Dist{Version: version, Libs: libs, Source: "maven"}, nil
}

// completeMark is what an install's complete file holds: the release and
// the layout of its libs, so that an install from before the tools were
// added is made again.
func completeMark(version string) string { return version + " with tools\n" }

// fromHome uses an unpacked official distribution.
func fromHome(home, want string) (Dist, error) {
	libs := filepath.Join(home, "libs")
	have, err := jarVersion(libs, "kafka_2.13-")
	if err != nil {
		return Dist{}, fmt.Errorf("KAFKA_HOME=%s does not look like a Kafka distribution: %w", home, err)
	}
	if want != "" && want != have {
		return Dist{}, fmt.Errorf("KAFKA_HOME=%s holds Kafka %s but %s was asked for: unset KAFKA_HOME to fetch %s from Maven Central", home, have, want, want)
	}
	return Dist{Version: have, Libs: libs, Source: "KAFKA_HOME"}, nil
}

// jarVersion finds prefix<version>.jar in dir.
func jarVersion(dir, prefix string) (string, error) {
	m, _ := filepath.Glob(filepath.Join(dir, prefix+"*.jar"))
	for _, p := range m {
		v := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), prefix), ".jar")
		if versionRE.MatchString(v) {
			return v, nil
		}
	}
	return "", fmt.Errorf("no %s<version>.jar in %s", prefix, dir)
}

// fallbackLog4j is the log4j2 version Kafka 4.0.0's distribution ships;
// that release's kafka_2.13 pom brings no log4j-core of its own.
const fallbackLog4j = "2.24.3"

// slf4jBinding lists the artifacts that make the broker log through log4j2:
// the SLF4J binding matching slf4j-api, at the version of log4j-core that
// Kafka brought, and log4j-core itself when it brought none.
func slf4jBinding(libs string) ([]string, error) {
	slf4j, err := jarVersion(libs, "slf4j-api-")
	if err != nil {
		return nil, err
	}
	artifact := "log4j-slf4j-impl"
	if major, _ := strconv.Atoi(strings.SplitN(slf4j, ".", 2)[0]); major >= 2 {
		artifact = "log4j-slf4j2-impl"
	}
	log4j, err := jarVersion(libs, "log4j-core-")
	if err != nil {
		log4j = fallbackLog4j
		return []string{"org.apache.logging.log4j:log4j-core:" + log4j, "org.apache.logging.log4j:" + artifact + ":" + log4j}, nil
	}
	return []string{"org.apache.logging.log4j:" + artifact + ":" + log4j}, nil
}

// pomFor is a pom depending on the given group:artifact:version list.
func pomFor(coords ...string) string {
	var deps strings.Builder
	for _, c := range coords {
		p := strings.Split(c, ":")
		fmt.Fprintf(&deps, "    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>\n", p[0], p[1], p[2])
	}
	return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafkabook</groupId><artifactId>kafka-libs</artifactId><version>1</version>
  <dependencies>
` + deps.String() + `  </dependencies>
</project>
`
}

// Resolve copies the given group:artifact:version artifacts and their
// runtime dependencies from Maven Central into out, with dir as Maven's
// scratch directory: Kafka's own jars here, kafka-clients for the java
// driver.
func Resolve(ctx context.Context, dir, out string, coords ...string) error {
	return mvnCopy(ctx, dir, pomFor(coords...), out)
}

// mvnCopy resolves the pom's runtime dependencies into out.
func mvnCopy(ctx context.Context, dir, pom, out string) error {
	pomPath := filepath.Join(dir, "pom.xml")
	if err := os.WriteFile(pomPath, []byte(pom), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "mvn", "-B", "-q", "-f", pomPath,
		"dependency:copy-dependencies", "-DincludeScope=runtime", "-DoutputDirectory="+out)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
		lines = lines[max(0, len(lines)-15):]
		return fmt.Errorf("mvn dependency:copy-dependencies failed: %v\n%s", err, strings.Join(lines, "\n"))
	}
	return nil
}
