// Package driver runs a Kafka client other than franz-go as a process of
// its own behind one protocol (docs/driver-protocol.md): kafkabook writes a
// JSON spec on the driver's stdin and reads JSON lines of events from its
// stdout. A driver's source is embedded in kafkabook and built on the
// user's machine into kafkabook's cache (see Install). franz-go's driver
// is the kafkabook binary itself (franzgo.go).
package driver

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
)

// Spec is what a producer driver sends: messages m-From .. m-(From+Count-1)
// in kafkabook's format (results.AppendMessageID, a blank, filler up to
// Size bytes), on the schedule of Rate.
type Spec struct {
	// Client is the driver's name for the client it sends through: spring
	// makes the spring driver send through Spring Kafka's KafkaTemplate
	// (its other clients' drivers hold one client each). "": the
	// driver's, which StartProducer fills in.
	Client    string   `json:"client,omitempty"`
	Topic     string   `json:"topic"`
	Bootstrap []string `json:"bootstrap_servers"`
	From      int      `json:"from"`
	Count     int      `json:"count"`
	// Properties are the runbook's client properties by the client's own
	// names (acks, linger.ms, enable.idempotence), the spec's only
	// settings: one absent is the client's default. The driver refuses
	// those a runbook may not set (Refuse), and the client the rest it
	// does not take.
	Properties map[string]string `json:"properties,omitempty"`
	// Access are the properties that make the client reach the cluster as
	// its access says (SecurityProperties), applied last.
	Access map[string]string `json:"access,omitempty"`
	// Rate is in messages per second: message i is meant to be sent
	// i/Rate seconds after the start command. 0: all at the start.
	Rate    float64 `json:"rate,omitempty"`
	Size    int     `json:"size,omitempty"`
	Keys    int     `json:"keys,omitempty"`
	Key     string  `json:"key,omitempty"`
	EventID string  `json:"event_id,omitempty"`
	// TransactionalID makes the producer transactional (transactional.id):
	// messages go out in transactions of TxnSize, every AbortEvery-th
	// aborted on purpose, and each transaction's end is reported
	// (transaction_end). "": no transactions.
	TransactionalID string `json:"transactional_id,omitempty"`
	TxnSize         int    `json:"txn_size,omitempty"`
	AbortEvery      int    `json:"abort_every,omitempty"`
}

// Result is the outcome of one send as the client saw it: the same type
// as kafkabook's franz-go producer reports, so that every driver's
// outcomes are recorded alike.
type Result = kafka.Result

// Stats says how the driver kept its schedule: kafka.ProduceStats, whose
// Stopped only franz-go's driver sets.
type Stats = kafka.ProduceStats

// Startup is what the driver says of itself once its client is built.
type Startup struct {
	Client     string            // java, spring, librdkafka
	Library    string            // kafka-clients, spring-kafka, confluent-kafka
	Version    string            // the library's exact version
	Librdkafka string            // rd_kafka_version_str, for librdkafka
	Runtime    string            // java 17.0.2, python 3.11.7; spring: "java 17.0.2, kafka-clients 4.2.2"
	Config     map[string]string // the configuration in force, by the client's names
	Unknown    []string          // property names the client does not know (Java warns only)
	SetByUs    []string          // the settings kafkabook set that neither the runbook nor the client's defaults decided
	Took       time.Duration     // from spawn to startup_complete
}

// Ref names a driver and, optionally, its library's version: java,
// java@3.9.1, librdkafka@2.15.1.
type Ref struct {
	Client  string
	Version string // "": the default (see Install)
}

func (r Ref) String() string {
	if r.Version == "" {
		return r.Client
	}
	return r.Client + "@" + r.Version
}

var versionRE = regexp.MustCompile(`^\d+\.\d+\.\d+$`)

// Clients are the drivers kafkabook can build: producers and consumer
// group members on each (spring's producer is Spring Kafka's
// KafkaTemplate, its member the listener container); transactional
// producers on java and librdkafka, transform members on java.
var Clients = []string{"java", "librdkafka", "spring"}

// ParseRef reads java, java@4.3.1, librdkafka@2.15.1, spring@4.0.1.
func ParseRef(s string) (Ref, error) {
	name, version, _ := strings.Cut(s, "@")
	r := Ref{Client: name, Version: version}
	switch name {
	case "java", "librdkafka", "spring":
	default:
		return r, fmt.Errorf("client %q: want one of %s, optionally with @version (java@4.3.1)", name, strings.Join(Clients, ", "))
	}
	if version != "" && !versionRE.MatchString(version) {
		return r, fmt.Errorf("client %q: version %q is not a release number like 4.3.1", s, version)
	}
	return r, nil
}

// durabilityProps are the settings, by either client's names, that decide
// what an acknowledgement means and how a send is timed; the rest of the
// configuration is in the driver's startup_complete.
var durabilityProps = []string{"acks", "request.required.acks", "enable.idempotence", "retries", "message.send.max.retries",
	"max.in.flight.requests.per.connection", "max.in.flight", "delivery.timeout.ms", "message.timeout.ms", "request.timeout.ms",
	"linger.ms", "queue.buffering.max.ms", "batch.size", "compression.type", "compression.codec"}

// Describe is the one line that says which client runs and the settings
// in force that decide durability: "kafka-clients 4.3.1 on java 17.0.2:
// acks=-1 enable.idempotence=true ...", "spring-kafka 4.1.2 on java
// 17.0.2, kafka-clients 4.2.2: acks=-1 ...".
func (s Startup) Describe() string {
	return s.describe(durabilityProps)
}

// describe is the library, its runtime and the given settings in force.
func (s Startup) describe(props []string) string {
	var b strings.Builder
	b.WriteString(s.Library + " " + s.Version)
	if s.Librdkafka != "" {
		b.WriteString(" (librdkafka " + s.Librdkafka + ")")
	}
	if s.Runtime != "" {
		b.WriteString(" on " + s.Runtime)
	}
	b.WriteString(":")
	for _, k := range props {
		if v, ok := s.Config[k]; ok {
			b.WriteString(" " + k + "=" + v)
		}
	}
	return b.String()
}

// Info is the startup as the evidence's provenance records it: the
// configuration without the cluster's addresses (bootstrap.servers, which
// the evidence keeps elsewhere and redacts for publishing) and without
// librdkafka's callback pointers (open_cb=0x7f…), which differ at every
// start and say nothing of what the client does.
func (s Startup) Info() results.ClientInfo {
	config := make(map[string]string, len(s.Config))
	for k, v := range s.Config {
		if k != "bootstrap.servers" && !pointerRE.MatchString(v) {
			config[k] = v
		}
	}
	return results.ClientInfo{Client: s.Client, Library: s.Library, Version: s.Version,
		Librdkafka: s.Librdkafka, Runtime: s.Runtime, Config: config, SetByKafkabook: s.SetByUs}
}

var pointerRE = regexp.MustCompile(`^0x[0-9a-f]+$`)

// InForce reads the acks and idempotence the client runs with from its
// configuration (the Java client's acks, librdkafka's
// request.required.acks; -1 is all), for the ledger: what the evidence
// says each send was made with, defaults included.
func (s Startup) InForce() (results.Acks, bool, error) {
	v, ok := s.Config["acks"]
	if !ok {
		v, ok = s.Config["request.required.acks"]
	}
	if v == "-1" {
		v = "all"
	}
	acks, err := results.ParseAcks(v)
	if !ok || err != nil {
		return 0, false, fmt.Errorf("the %s driver did not say the acks in force (acks or request.required.acks: %q)", s.Client, v)
	}
	return acks, s.Config["enable.idempotence"] == "true", nil
}
