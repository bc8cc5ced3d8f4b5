package runbook

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
)

// Clients a runbook runs with: franz-go in kafkabook's process, the others
// as drivers (internal/driver, docs/driver-protocol.md).
const (
	FranzGo    = "franz-go"
	Java       = "java"
	Librdkafka = "librdkafka"
	// Spring is Spring Kafka: its KafkaTemplate for producers, its
	// listener container for consumer group members, on the kafka-clients
	// release the spring-kafka release depends on.
	Spring = "spring"
)

// springKafkaClients is the kafka-clients release each spring-kafka
// release depends on, by the version --client spring@V gives ("" is the
// spring driver's default, driver.DefaultSpring): spring's producer and
// consumer properties are that release's. A release not listed is checked
// against the newest catalogue.
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
			return strconv.Itoa(clientconfig.RetriesMax)
		}
	case "idempotent":
		return strconv.FormatBool(st.flagBool(flag))
	}
	return v
}

// checkProducer checks a produce step's properties as each client of the
// step would take them (clientconfig.CheckProducer: for franz-go every
// value and the rules between them, for the others, spring's kafka-clients
// among them, the rule that ties idempotence and transactions to
// acks=all), and reports each problem
// where the runbook gave the property: its shorthand flag, its -X value,
// else the step (the front matter's producer: map). A problem already
// reported there (by the catalogue) is not said twice, nor is a name
// franz-go does not map (checkClientProperty words that one).
func (c *checker) checkProducer(st *Step, props map[string]string) {
	seen := map[string]bool{}
	for _, cl := range c.stepClients(st) {
		client, _, err := ParseClient(cl)
		if err != nil {
			continue
		}
		for _, e := range clientconfig.CheckProducer(client, props, st.flagBool("transactional")) {
			p, label := c.propertySource(st, e.Name)
			if e.Unmapped || seen[e.Error()] || c.errs.at(p) {
				continue
			}
			seen[e.Error()] = true
			c.errorf(p, "%s: %s", label, e.Msg)
		}
	}
}

// propertySource is where a produce step gives a property, and how an
// error names it there.
func (c *checker) propertySource(st *Step, name string) (Pos, string) {
	for _, s := range shorthands {
		if s.property == name && st.written(s.flag) {
			return st.flagPos(s.flag), "--" + s.flag
		}
	}
	for _, a := range slices.Backward(st.Flags["property"]) {
		if n, _, _ := strings.Cut(a.Text, "="); n == name {
			return a.Pos, "-X " + name
		}
	}
	return st.Pos, "producer: " + name + " (from the front matter)"
}

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
		if client == Spring {
			// Spring Kafka passes producer and consumer properties to the
			// kafka-clients it runs on: that release's catalogue, else the
			// newest.
			if caps.ClientProperty != nil {
				if err := caps.ClientProperty(Java, springKafkaClients[version], role, name, value); err != nil && !seen[err.Error()] {
					seen[err.Error()] = true
					report(p, "spring passes it to kafka-clients: "+err.Error())
				}
			}
			continue
		}
		if client == FranzGo && role == RoleProducer && !clientconfig.FranzGoMaps(name) {
			// The catalogue tells a typo (with a did-you-mean), a
			// consumer property or a name no client has from a property
			// of the other clients; one it takes, franz-go still cannot:
			// kafkabook maps only clientconfig.FranzGoProperties.
			msg := clientconfig.FranzGoRefusal(name)
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
		checkClientProperty(c.caps, &c.d.Meta, clients, RoleProducer, name, value, a.Pos, func(p Pos, msg string) {
			c.errorf(p, "-X %s: %s", name, msg)
		})
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
