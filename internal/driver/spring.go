package driver

import (
	"embed"
	"strings"
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

// springDriver is the spring driver: spring-kafka (and with it
// kafka-clients and the Spring Framework) and sqlite-jdbc resolved from
// Maven Central into driver-spring-<version>/libs, and the java driver
// compiled with Spring's template (producers) and listener container
// (consumer group members) against them.
var springDriver = jvmDriver{
	name: "spring", library: "spring-kafka", artifact: "org.springframework.kafka:spring-kafka", deps: springDeps,
	def: DefaultSpring, releases: "4.0.8, 4.1.2", source: springSource, libs: springLibs,
	compiles: "the producer (KafkaTemplate) and the member (listener container)",
	files:    []sourceFiles{{javaFiles, "java/*.java"}, {springFiles, "spring/*.java"}},
}
