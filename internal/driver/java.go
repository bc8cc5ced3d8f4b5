package driver

import (
	"context"
	_ "embed"
	"fmt"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed java/KafkabookDriver.java
var javaSource []byte

// DefaultJava is the kafka-clients version of `java` when neither the
// runbook nor the cluster says one (the engine passes the cluster's Kafka
// version).
const DefaultJava = kafkadist.Default

// installJava resolves kafka-clients and its runtime dependencies from
// Maven Central with mvn into driver-java-<version>/libs and compiles the
// driver against them into classes/.
func installJava(ctx context.Context, cache string, ref Ref, progress func(string, ...any)) (Driver, error) {
	if ref.Version == "" {
		ref.Version = DefaultJava
	}
	dir := filepath.Join(cache, "driver-java-"+ref.Version)
	d := Driver{Ref: ref, Dir: dir, Argv: javaArgv(dir, true)}
	if err := need("java", "openjdk-17-jre-headless", "the java driver runs on a JVM"); err != nil {
		return d, err
	}
	if installed(dir, javaSource) {
		return d, nil
	}
	if err := need("javac", "openjdk-17-jdk-headless", "the java driver is compiled on this machine with the JDK's javac"); err != nil {
		return d, err
	}
	if err := need("mvn", "maven", "kafka-clients comes from Maven Central through Maven"); err != nil {
		return d, err
	}
	err := build(cache, dir, javaSource, func(tmp string) error {
		progress("java driver: resolving org.apache.kafka:kafka-clients:%s from Maven Central", ref.Version)
		err := kafkadist.Resolve(ctx, tmp, filepath.Join(tmp, "libs"), "org.apache.kafka:kafka-clients:"+ref.Version)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "Could not find artifact") || strings.Contains(msg, "could not be resolved") || strings.Contains(msg, "was not found in") {
				return fmt.Errorf("kafka-clients %s is not on Maven Central: releases look like 3.9.1, 4.3.1", ref.Version)
			}
			return err
		}
		progress("java driver: compiling KafkabookDriver.java against kafka-clients %s", ref.Version)
		src := filepath.Join(tmp, "KafkabookDriver.java")
		if err := os.WriteFile(src, javaSource, 0o644); err != nil {
			return err
		}
		if err := run(ctx, tmp, "javac", "--release", "17", "-nowarn", "-d", "classes", "-cp", filepath.Join("libs", "*"), src); err != nil {
			return err
		}
		return run(ctx, tmp, "jar", "cf", "driver.jar", "-C", "classes", ".")
	})
	if err != nil {
		return d, fmt.Errorf("install the java driver (kafka-clients %s): %w", ref.Version, err)
	}
	progress("java driver: archiving the classes it loads at start-up (class data sharing)")
	if err := archiveClasses(ctx, dir); err != nil {
		progress("java driver: no class archive, start-up will be slower: %v", err)
	}
	progress("java driver: kafka-clients %s ready in %s", ref.Version, dir)
	return d, nil
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
	cp := filepath.Join(dir, "driver.jar") + string(os.PathListSeparator) + filepath.Join(dir, "libs", "*")
	return append(argv, "-cp", cp, "KafkabookDriver")
}

// archiveClasses runs the driver once, with no broker and nothing to send,
// to dump the classes it loads into a class data sharing archive
// (driver.jsa): the JVM then maps them instead of loading them, which
// about halves the driver's start-up.
func archiveClasses(ctx context.Context, dir string) error {
	argv := javaArgv(dir, false)
	jsa := filepath.Join(dir, "driver.jsa")
	argv = append([]string{argv[0], "-XX:ArchiveClassesAtExit=" + jsa}, argv[1:]...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(`{"topic":"t","bootstrap_servers":["127.0.0.1:9"],"count":0}` + "\n" + `{"command":"start"}` + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(jsa)
		return fmt.Errorf("%v: %s", err, tailLines(string(out), 5))
	}
	return nil
}
