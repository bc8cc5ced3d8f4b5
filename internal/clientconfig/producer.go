package clientconfig

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// A producer step's settings are held once, as its properties by the
// client's own names (the front matter's producer: map, -X values and the
// shorthand flags). The Java client and librdkafka read them themselves
// and report what is in force; franz-go, which has options instead, gets
// them read once into a FranzGoProducer, the one place that says what
// they mean for it. CheckProducer is check's question for every client.

// FranzGoProducer is a franz-go producer's configuration, read by
// ParseFranzGoProducer from a step's properties: the settings that rules
// tie together typed, and every property as given, for the options that
// stand alone (linger.ms, compression.type, ...), which internal/kafka
// maps one by one. A zero field is franz-go's default.
type FranzGoProducer struct {
	// Properties are the step's properties as the runbook gives them.
	Properties map[string]string
	// Acks is all unless given: franz-go's default.
	Acks results.Acks
	// Idempotent is on unless enable.idempotence=false is given, or acks
	// is given and not all, which franz-go cannot write idempotently: then
	// kafkabook turns it off, as the Java client decides when
	// enable.idempotence is not given, and the evidence names it as set
	// by kafkabook. A transactional producer is always idempotent.
	Idempotent bool
	// Retries is nil for franz-go's default: until the delivery timeout
	// (retries at or above the Java client's 2147483647 mean the same).
	Retries *int
	// MaxInFlight is 0 for franz-go's default (1 without idempotence;
	// with it franz-go keeps up to 5 per broker, one until the broker's
	// first produce response, and takes no other number: its validate
	// refuses MaxProduceRequestsInflightPerBroker other than 1 with
	// idempotence, and 1 does not hold it to one).
	MaxInFlight int
	// DeliveryTimeout and RequestTimeout are delivery.timeout.ms and
	// request.timeout.ms; 0: franz-go's defaults (no delivery timeout).
	DeliveryTimeout, RequestTimeout time.Duration
	Transactional                   bool
}

// TypedProperties are the properties a FranzGoProducer holds as fields;
// internal/kafka maps the others one by one.
var TypedProperties = []string{"acks", "enable.idempotence", "retries", "max.in.flight.requests.per.connection",
	"delivery.timeout.ms", "request.timeout.ms"}

// idempotentInFlight is the number of produce requests franz-go keeps in
// flight per broker with idempotence, whatever it is told (Kafka's limit
// for idempotent producers since 1.0).
const idempotentInFlight = 5

// RetriesMax is the Java client's retries default, what --retries max
// writes: retry until the delivery timeout.
const RetriesMax = 1<<31 - 1

// A PropertyError is a producer property a client cannot run with, by
// name, so that check can point at where the runbook gave it.
type PropertyError struct {
	Name string
	Msg  string
	// Unmapped is true when franz-go has no mapping for the name at all:
	// check words that one from the client's catalogue.
	Unmapped bool
}

func (e PropertyError) Error() string { return e.Name + ": " + e.Msg }

// ParseFranzGoProducer reads a step's producer properties into franz-go's
// configuration and checks them as franz-go would (as kgo validates its
// config once): every name mapped, every value one franz-go takes, and
// the rules between them. The errors come in the order of the names.
func ParseFranzGoProducer(props map[string]string, transactional bool) (FranzGoProducer, []PropertyError) {
	c := FranzGoProducer{Properties: props, Acks: results.AcksAll, Idempotent: true, Transactional: transactional}
	var errs []PropertyError
	bad := func(name, format string, args ...any) {
		errs = append(errs, PropertyError{Name: name, Msg: fmt.Sprintf(format, args...)})
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		v := props[name]
		m, ok := franzGo[Producer][name]
		switch {
		case name == "transactional.id":
			bad(name, "kafkabook gives a franz-go producer its transactional.id itself: use --transactional")
			continue
		case !ok:
			errs = append(errs, PropertyError{Name: name, Msg: FranzGoRefusal(name), Unmapped: true})
			continue
		case m.valid != nil && !m.valid(v):
			bad(name, "bad value %q for %s: want %s", v, name, m.want)
			continue
		}
		n, _ := strconv.Atoi(v)
		switch name {
		case "acks":
			c.Acks = acksOf(v)
		case "enable.idempotence":
			c.Idempotent, _ = strconv.ParseBool(v)
		case "retries":
			if n < RetriesMax {
				c.Retries = &n
			}
		case "max.in.flight.requests.per.connection":
			c.MaxInFlight = n
		case "delivery.timeout.ms":
			c.DeliveryTimeout = time.Duration(n) * time.Millisecond
		case "request.timeout.ms":
			c.RequestTimeout = time.Duration(n) * time.Millisecond
		}
	}
	if _, given := props["enable.idempotence"]; !given && c.Acks != results.AcksAll {
		c.Idempotent = false
	}
	errs = append(errs, idempotenceErrors(props, c.Acks, c.Idempotent, transactional)...)
	if transactional {
		c.Idempotent = true
	}
	if c.Idempotent && c.MaxInFlight != 0 && c.MaxInFlight != idempotentInFlight {
		way := ", or turn idempotence off (enable.idempotence=false)"
		if transactional {
			way = ": a transactional producer is idempotent"
		}
		bad("max.in.flight.requests.per.connection", "%d with idempotence: franz-go keeps up to %d produce requests in flight per broker with idempotence and takes no other number; leave it out (or give %d)%s",
			c.MaxInFlight, idempotentInFlight, idempotentInFlight, way)
	}
	return c, errs
}

// CheckProducer is check's question for a produce step through client
// (java, librdkafka, franz-go): which of its properties that client
// cannot run with, beyond the catalogue's check of each name and value.
// For franz-go that is ParseFranzGoProducer; for the others, the acks
// Kafka's protocol has, and its rule that an idempotent or transactional
// producer writes with acks=all, which both clients refuse to start
// without.
func CheckProducer(client string, props map[string]string, transactional bool) []PropertyError {
	if client == FranzGoClient {
		_, errs := ParseFranzGoProducer(props, transactional)
		return errs
	}
	acks, idempotent := results.AcksAll, false
	if v, ok := props["acks"]; ok {
		if !isAcks(v) {
			return []PropertyError{{Name: "acks", Msg: fmt.Sprintf("bad value %q for acks: want %s", v, franzGo[Producer]["acks"].want)}}
		}
		acks = acksOf(v)
	}
	if v, ok := props["enable.idempotence"]; ok {
		idempotent, _ = strconv.ParseBool(v)
	}
	return idempotenceErrors(props, acks, idempotent, transactional)
}

// idempotenceErrors are the breaches of the rules that tie idempotence to
// acks and transactions, named by the property that breaks them.
func idempotenceErrors(props map[string]string, acks results.Acks, idempotent, transactional bool) []PropertyError {
	v, given := props["enable.idempotence"]
	switch {
	case transactional && given && v == "false":
		return []PropertyError{{Name: "enable.idempotence", Msg: "a transactional producer is idempotent: leave enable.idempotence out, or drop --transactional"}}
	case transactional:
		if err := results.CheckIdempotence(acks, true); err != nil {
			return []PropertyError{{Name: "acks", Msg: "a transactional producer is idempotent, and " + err.Error()}}
		}
	case given:
		if err := results.CheckIdempotence(acks, idempotent); err != nil {
			return []PropertyError{{Name: "enable.idempotence", Msg: err.Error()}}
		}
	}
	return nil
}

// acksOf reads a checked acks value; -1 is all, as the Java client and
// librdkafka write it.
func acksOf(v string) results.Acks {
	if v == "-1" {
		return results.AcksAll
	}
	a, _ := results.ParseAcks(v)
	return a
}

// FranzGoMaps reports whether kafkabook maps a producer property onto
// franz-go. transactional.id is not one a runbook may give: kafkabook
// sets it from --transactional.
func FranzGoMaps(name string) bool {
	_, ok := franzGo[Producer][name]
	return ok && name != "transactional.id"
}

// FranzGoProperties are the producer properties a runbook may give a
// franz-go producer, sorted.
func FranzGoProperties() []string {
	return slices.DeleteFunc(Names(FranzGoClient, "", Producer), func(n string) bool { return !FranzGoMaps(n) })
}

// FranzGoRefusal says that kafkabook does not map a producer property
// onto franz-go, and what to use instead.
func FranzGoRefusal(name string) string {
	return fmt.Sprintf("kafkabook does not map %s onto franz-go (it maps %s): use --client java or --client librdkafka", name, strings.Join(FranzGoProperties(), ", "))
}
