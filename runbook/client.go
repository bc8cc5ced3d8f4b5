package runbook

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// Clients a runbook runs with: franz-go in kafkabook's process, the others
// as drivers (internal/driver, docs/driver-protocol.md).
const (
	FranzGo    = "franz-go"
	Java       = "java"
	Librdkafka = "librdkafka"
	// Spring is Spring Kafka's listener container: consumer group
	// members only.
	Spring = "spring"
)

// springKafkaClients is the kafka-clients release each spring-kafka
// release depends on, by the version --client spring@V gives ("" is the
// spring driver's default, driver.DefaultSpring); a release not listed is
// checked against the newest catalogue.
var springKafkaClients = map[string]string{"": "4.2.2", "4.1.2": "4.2.2"}

// DefaultClient is the client of a runbook whose front matter names none.
const DefaultClient = FranzGo

// clientNames are the clients in the order of the reference.
var clientNames = []string{FranzGo, Java, Librdkafka, Spring}

// Client roles: the properties of a producer and of a consumer are two
// catalogues.
const (
	RoleProducer = "producer"
	RoleConsumer = "consumer"
)

var clientVersionRE = regexp.MustCompile(`^\d+\.\d+\.\d+$`)

// ParseClient reads a client as runbooks and --client write it: franz-go,
// java, java@3.9.1, librdkafka@2.15.1. The version after @ is the
// library's release (kafka-clients, confluent-kafka); franz-go is built
// into kafkabook and takes none.
func ParseClient(s string) (name, version string, err error) {
	name, version, hasAt := strings.Cut(s, "@")
	switch {
	case !slices.Contains(clientNames, name):
		return name, version, fmt.Errorf("client %q: want one of %s, optionally with @version (java@4.3.1)%s",
			name, strings.Join(clientNames, ", "), didYouMean(name, clientNames))
	case name == FranzGo && hasAt:
		return name, version, fmt.Errorf("client %q: franz-go is built into kafkabook at one version and takes no @version", s)
	case hasAt && !clientVersionRE.MatchString(version):
		return name, version, fmt.Errorf("client %q: version %q is not a release number like 4.3.1", s, version)
	}
	return name, version, nil
}

// shorthands are the produce flags that stand for a client property, by
// the Java client's name (librdkafka takes the same names as aliases).
var shorthands = []struct{ flag, property string }{
	{"acks", "acks"},
	{"idempotent", "enable.idempotence"},
	{"retries", "retries"},
	{"max-in-flight", "max.in.flight.requests.per.connection"},
	{"delivery-timeout", "delivery.timeout.ms"},
}

// shorthandValue is the property value a given shorthand flag means.
func shorthandValue(st *Step, flag string) string {
	v := st.flagStr(flag)
	switch flag {
	case "delivery-timeout":
		return strconv.FormatInt(st.flagDuration(flag).Milliseconds(), 10)
	case "retries":
		if v == "max" {
			return strconv.Itoa(maxInt32)
		}
	case "idempotent":
		return strconv.FormatBool(st.flagBool(flag))
	}
	return v
}

// maxInt32 is the Java client's retries default: retry until the delivery
// timeout, what --retries max means.
const maxInt32 = 1<<31 - 1

// stepProperties are a produce step's client properties: the front
// matter's producer: map, then the step's -X values, then its shorthand
// flags, each later one winning (check refuses a shorthand and its
// property on one line).
func stepProperties(st *Step, meta map[string]string) map[string]string {
	props := make(map[string]string, len(meta))
	for k, v := range meta {
		props[k] = v
	}
	for k, v := range st.flagKeyValues("property") {
		props[k] = v
	}
	for _, s := range shorthands {
		if st.written(s.flag) {
			props[s.property] = shorthandValue(st, s.flag)
		}
	}
	return props
}

// written reports whether the flag was written on the line, under its
// name or the old name it replaced.
func (s *Step) written(name string) bool {
	if s.given(name) {
		return true
	}
	for _, f := range s.dir.Flags {
		if f.Deprecated == name && len(s.Flags[f.Name]) > 0 {
			return true
		}
	}
	return false
}

// stepClients are the clients a produce step runs through: its own
// --client, else every client of the runbook.
func (c *checker) stepClients(st *Step) []string {
	if st.given("client") {
		return []string{st.flagStr("client")}
	}
	return c.d.Meta.Client
}

// clientProperty checks one property for every client it goes to, through
// the catalogue the caller gave (Capabilities.ClientProperty), and
// reports each problem at p.
func checkClientProperty(caps Capabilities, meta *Meta, clients []string, role, name, value string, p Pos, report func(Pos, string)) {
	seen := map[string]bool{}
	for _, cl := range clients {
		client, version, err := ParseClient(cl)
		if err != nil {
			continue // reported where the client is named
		}
		if client == Spring && role == RoleProducer {
			if msg := springProduces; !seen[msg] {
				seen[msg] = true
				report(p, msg)
			}
			continue
		}
		if client == Spring {
			// Spring Kafka passes consumer properties to the kafka-clients
			// it runs on: that release's catalogue, else the newest.
			if caps.ClientProperty != nil {
				if err := caps.ClientProperty(Java, springKafkaClients[version], role, name, value); err != nil && !seen[err.Error()] {
					seen[err.Error()] = true
					report(p, "spring passes it to kafka-clients: "+err.Error())
				}
			}
			continue
		}
		if client == FranzGo && role == RoleProducer && !FranzGoMaps(name) {
			// The catalogue tells a typo (with a did-you-mean), a
			// consumer property or a name no client has from a property
			// of the other clients; one it takes, franz-go still cannot:
			// kafkabook maps only FranzGoProperties.
			msg := FranzGoRefusal(name)
			if caps.ClientProperty != nil {
				if err := caps.ClientProperty(client, version, role, name, value); err != nil {
					msg = err.Error()
				}
			}
			if !seen[msg] {
				seen[msg] = true
				report(p, msg)
			}
			continue
		}
		versions := []string{version}
		if client == Java && version == "" {
			versions = meta.Kafka // the Java client at the cluster's release
		}
		for _, v := range versions {
			if caps.ClientProperty == nil {
				break
			}
			if err := caps.ClientProperty(client, v, role, name, value); err != nil && !seen[err.Error()] {
				seen[err.Error()] = true
				report(p, err.Error())
			}
		}
	}
}

// mapped are the properties kafkabook maps onto franz-go's options
// (internal/kafka's producer options; a test there keeps both lists the
// same), with the check of their values: the five the shorthand flags
// stand for, which the ledger reads too, and the others a franz-go user
// sets as often.
var mapped = map[string]func(string) bool{
	"linger.ms":              nonNegative,
	"batch.size":             positive,
	"buffer.memory":          nonNegative,
	"transaction.timeout.ms": positive,
	"client.id":              func(string) bool { return true },
	"compression.type": func(v string) bool {
		return slices.Contains([]string{"none", "gzip", "snappy", "lz4", "zstd"}, v)
	},
	"acks": func(v string) bool { _, err := ParseAcksProperty(v); return err == nil },
	"enable.idempotence": func(v string) bool {
		_, err := strconv.ParseBool(v)
		return err == nil
	},
	"retries":                               nonNegative,
	"max.in.flight.requests.per.connection": positive,
	"delivery.timeout.ms":                   positive,
	"request.timeout.ms":                    positive,
}

// nonNegative and positive check an integer property's value.
func nonNegative(v string) bool { n, err := strconv.Atoi(v); return err == nil && n >= 0 }
func positive(v string) bool    { n, err := strconv.Atoi(v); return err == nil && n >= 1 }

// FranzGoProperties are the producer properties kafkabook maps onto
// franz-go, sorted.
func FranzGoProperties() []string { return slices.Sorted(maps.Keys(mapped)) }

// FranzGoMaps reports whether kafkabook maps a producer property onto
// franz-go (FranzGoProperties); franz-go takes no other, and a property
// it would ignore is refused rather than dropped.
func FranzGoMaps(name string) bool {
	_, ok := mapped[name]
	return ok
}

// FranzGoRefusal says that franz-go cannot take a property, for check and
// the engine alike.
func FranzGoRefusal(name string) string {
	if name == "transactional.id" {
		return "kafkabook gives a franz-go producer its transactional.id itself: use --transactional"
	}
	return fmt.Sprintf("kafkabook does not map %s onto franz-go (it maps %s): use --client java or --client librdkafka", name, strings.Join(FranzGoProperties(), ", "))
}

// ParseAcksProperty reads an acks property as the clients write it: 0, 1,
// all, or -1 (all, the Java client's and librdkafka's spelling).
func ParseAcksProperty(v string) (results.Acks, error) {
	if v == "-1" {
		return results.AcksAll, nil
	}
	return results.ParseAcks(v)
}

// checkClientProperties checks a produce step's --client and -X values:
// the client exists, the names are the client's own (through
// Capabilities.ClientProperty), a shorthand flag and its property are
// not both given, and the values kafkabook reads are well formed.
func checkClientProperties(c *checker, st *Step) {
	if st.given("client") {
		if _, _, err := ParseClient(st.flagStr("client")); err != nil {
			c.errorf(st.flagPos("client"), "--client: %v", err)
		}
	}
	clients := c.stepClients(st)
	if st.given("client") && !slices.Contains(c.d.Meta.Client, st.flagStr("client")) {
		// The front matter's producer: was checked for the run's clients,
		// not for this step's own.
		for _, name := range slices.Sorted(maps.Keys(c.d.Meta.Producer)) {
			checkClientProperty(c.caps, &c.d.Meta, clients, RoleProducer, name, c.d.Meta.Producer[name], st.flagPos("client"), func(p Pos, msg string) {
				c.errorf(p, "producer: %s (from the front matter): %s", name, msg)
			})
		}
	}
	for _, a := range st.Flags["property"] {
		name, value, ok := strings.Cut(a.Text, "=")
		if !ok || name == "" {
			continue // reported as a bad -X value
		}
		for _, s := range shorthands {
			if s.property == name && st.written(s.flag) {
				c.errorf(a.Pos, "-X %s and --%s set the same property: give one", name, s.flag)
			}
		}
		if ok := mapped[name]; ok != nil && !ok(value) {
			c.errorf(a.Pos, "-X %s=%s: bad value for %s", name, value, name)
		}
		checkClientProperty(c.caps, &c.d.Meta, clients, RoleProducer, name, value, a.Pos, func(p Pos, msg string) {
			c.errorf(p, "-X %s: %s", name, msg)
		})
	}
}

// clientSettings applies a produce step's properties to its typed fields:
// what franz-go and the ledger read. Values were checked.
func (a *Produce) clientSettings(props map[string]string) {
	if v, ok := props["acks"]; ok {
		a.Acks, _ = ParseAcksProperty(v)
	} else {
		a.AcksDefault = true
	}
	if v, ok := props["enable.idempotence"]; ok {
		a.Idempotent, _ = strconv.ParseBool(v)
	}
	if v, ok := props["retries"]; ok {
		if n, _ := strconv.Atoi(v); n < maxInt32 {
			a.Retries = &n
		}
	}
	if v, ok := props["max.in.flight.requests.per.connection"]; ok {
		a.MaxInFlight, _ = strconv.Atoi(v)
	}
	if v, ok := props["delivery.timeout.ms"]; ok {
		ms, _ := strconv.Atoi(v)
		a.Timeout = time.Duration(ms) * time.Millisecond
	}
	if v, ok := props["request.timeout.ms"]; ok {
		ms, _ := strconv.Atoi(v)
		a.RequestTimeout = time.Duration(ms) * time.Millisecond
	}
}

// clientSetting is one entry of the producer: or consumer: map with the
// position of its name.
type clientSetting struct {
	role, name, value string
	pos               Pos
}

// checkClientSettings checks the front matter's producer: and consumer:
// properties against the catalogue of every client the runbook runs with.
func checkClientSettings(settings []clientSetting, m *Meta, caps Capabilities) ErrorList {
	var errs ErrorList
	for _, s := range settings {
		if ok := mapped[s.name]; s.role == RoleProducer && ok != nil && !ok(s.value) {
			errs = append(errs, &Error{Pos: s.pos, Msg: fmt.Sprintf("producer: bad value %q for %s", s.value, s.name)})
		}
		checkClientProperty(caps, m, m.Client, s.role, s.name, s.value, s.pos, func(p Pos, msg string) {
			errs = append(errs, &Error{Pos: p, Msg: s.role + ": " + msg})
		})
	}
	return errs
}

// lineEnd is the position just after a step's text, where a missing
// argument or flag is reported.
func (st *Step) lineEnd() Pos {
	end := st.Pos
	end.Col += len(strings.TrimSuffix(st.Text, "&"))
	end.Col = max(end.Col, st.Pos.Col+1)
	return end
}
