package driver

import (
	"context"
	"embed"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kafkabook/kafkabook/internal/kafkadist"
)

// springFiles is the spring driver's own source: Spring Kafka's
// KafkaTemplate under the java driver's producer loop (SpringProducer.java:
// its pacing, reports and classification) and Spring Kafka's listener
// container around the java driver's member (SpringMember.java: its
// store, handling and reports), compiled together with the java driver's
// files.
//
//go:embed spring/*.java
var springFiles embed.FS

// springSource is what a spring install's hash covers: the java driver's
// sources and the spring driver's, and the artifacts resolved with
// spring-kafka.
var springSource = append(append(sources(javaFiles, "java/*.java"), sources(springFiles, "spring/*.java")...), "\x00libs:"+strings.Join(springDeps, ",")...)

// springLogging is the SLF4J binding the spring driver resolves with
// spring-kafka, at the slf4j-api release kafka-clients 4.x depends on
// (1.7.36): with it, what kafka-clients and Spring log at WARN and above
// (javaArgv sets the level) reaches the member's stderr, where kafkabook
// reads the client's own reaction to a property it let through
// (consume --allow-unknown). Without a binding SLF4J drops every line.
const springLogging = "org.slf4j:slf4j-simple:1.7.36"

// springDeps are the artifacts the spring driver resolves besides
// spring-kafka: the java driver's and the logging binding.
var springDeps = append(append([]string{}, javaDeps...), springLogging)

// springLibs are the artifacts the spring driver resolves, with their
// runtime dependencies (kafka-clients among them): spring-kafka at version
// and springDeps.
func springLibs(version string) []string {
	return append([]string{"org.springframework.kafka:spring-kafka:" + version}, springDeps...)
}

// DefaultSpring is the spring-kafka release of `spring` when none is
// pinned: the 4.1 line, which runs on Java 17 and kafka-clients 4.x.
const DefaultSpring = "4.1.2"

// installSpring resolves spring-kafka (and with it kafka-clients and the
// Spring Framework) and sqlite-jdbc from Maven Central into
// driver-spring-<version>/libs and compiles the java driver with Spring's
// template (producers) and listener container (consumer group members)
// against them.
func installSpring(ctx context.Context, cache string, ref Ref, progress func(string, ...any)) (Driver, error) {
	if ref.Version == "" {
		ref.Version = DefaultSpring
	}
	dir := filepath.Join(cache, "driver-spring-"+ref.Version)
	d := Driver{Ref: ref, Dir: dir, Argv: javaArgv(dir, true)}
	if err := need("java", "openjdk-17-jre-headless", "the spring driver runs on a JVM"); err != nil {
		return d, err
	}
	if installed(dir, springSource) {
		return d, nil
	}
	if err := need("javac", "openjdk-17-jdk-headless", "the spring driver is compiled on this machine with the JDK's javac"); err != nil {
		return d, err
	}
	if err := need("mvn", "maven", "spring-kafka comes from Maven Central through Maven"); err != nil {
		return d, err
	}
	err := build(cache, dir, springSource, func(tmp string) error {
		progress("spring driver: resolving org.springframework.kafka:spring-kafka:%s, %s from Maven Central", ref.Version, strings.Join(springDeps, ", "))
		err := kafkadist.Resolve(ctx, tmp, filepath.Join(tmp, "libs"), springLibs(ref.Version)...)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "Could not find artifact") || strings.Contains(msg, "could not be resolved") || strings.Contains(msg, "was not found in") {
				return fmt.Errorf("spring-kafka %s is not on Maven Central: releases look like 4.0.8, 4.1.2", ref.Version)
			}
			return err
		}
		progress("spring driver: compiling the producer (KafkaTemplate) and the member (listener container) against spring-kafka %s", ref.Version)
		srcs, err := writeSources(javaFiles, "java/*.java", tmp)
		if err != nil {
			return err
		}
		more, err := writeSources(springFiles, "spring/*.java", tmp)
		if err != nil {
			return err
		}
		if err := extractSQLiteNative(tmp); err != nil {
			progress("spring driver: sqlite-jdbc will extract its native library at each start: %v", err)
		}
		args := append(append(append([]string{}, javacFlags...), "-nowarn", "-d", "classes", "-cp", filepath.Join("libs", "*")), append(srcs, more...)...)
		if err := run(ctx, tmp, "javac", args...); err != nil {
			return err
		}
		return run(ctx, tmp, "jar", "cf", "driver.jar", "-C", "classes", ".")
	})
	if err != nil {
		return d, fmt.Errorf("install the spring driver (spring-kafka %s): %w", ref.Version, err)
	}
	progress("spring driver: archiving the classes it loads at start-up (class data sharing)")
	if err := archiveClasses(ctx, dir, ref.Client); err != nil {
		progress("spring driver: no class archive, start-up will be slower: %v", err)
	}
	d.Argv = javaArgv(dir, true)
	progress("spring driver: spring-kafka %s ready in %s", ref.Version, dir)
	return d, nil
}
