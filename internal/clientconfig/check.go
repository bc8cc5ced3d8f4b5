package clientconfig

import (
	"fmt"
	"github.com/kafkabook/kafkabook/internal/typo"
	"strings"
)

// Check validates one client property by its real name for that client,
// version and role: client is "java", "librdkafka" or "franz-go"; version
// is kafka-clients' version for java, confluent-kafka's for librdkafka
// ("" for the newest catalogued), ignored for franz-go. A version without
// a catalogue is an error naming those there are and the command that adds
// one, rather than a neighbour's list: properties come and go between
// minor releases (4.1 added 17 producer properties), and a wrong list
// would pass a name the client ignores or refuse one it takes.
//
// An unknown name gets a did-you-mean; a consumer property given to a
// producer (or the reverse) says so; for franz-go, a name kafkabook does
// not map to a kgo option is refused with "use --client java" (for a
// producer, "or --client librdkafka" too). The value must be one line of
// the property's type (and within its range or list when the catalogue
// prints one); class and list values are taken as text.
func Check(client, version string, role Role, name, value string) error {
	if role != Producer && role != Consumer {
		return fmt.Errorf("role %q: want producer or consumer", role)
	}
	if client == FranzGoClient {
		p, _ := Lookup(Java, "", role, name) // franz-go takes Java's names
		if err := refused(p, name, value); err != nil {
			return err
		}
		return checkFranzGo(role, name, value)
	}
	c, version, err := lookupCatalog(client, version)
	if err != nil {
		return err
	}
	p, ok := c[role][name]
	if _, otherRole := c[other(role)][name]; ok || !otherRole {
		if err := refused(p, name, value); err != nil {
			return err // also for a name the catalogue lacks: --allow-unknown lets no such name through
		}
	}
	if !ok {
		return unknown(client, product(client, version), role, name, c)
	}
	return checkValue(client, p, value)
}

// refused is Refused as check's error.
func refused(p Property, name, value string) error {
	if why := Refused(p, name, value); why != "" {
		return fmt.Errorf("a runbook may not set %s: it %s", name, why)
	}
	return nil
}

// checkFranzGo checks name against the table kafkabook maps, and its value
// against the newest Java catalogue's type (the names are Java's). A Java
// property outside the table is refused with "use --client java"; a name
// Java lacks too is called unknown, since pointing at java would not help.
func checkFranzGo(role Role, name, value string) error {
	if _, ok := franzGo[role][name]; ok {
		p, _ := Lookup(Java, "", role, name)
		return checkValue(Java, p, value)
	}
	if _, ok := franzGo[other(role)][name]; ok {
		return fmt.Errorf("%q is a %s property, not a %s one (franz-go)", name, other(role), role)
	}
	if s := suggest(name, Names(FranzGoClient, "", role)); s != "" {
		return fmt.Errorf("unknown franz-go %s property %q: did you mean %q?", role, name, s)
	}
	if _, ok := Lookup(Java, "", role, name); !ok {
		return fmt.Errorf("unknown franz-go %s property %q: kafkabook maps Java's property names onto franz-go, and kafka-clients has no %s property of that name either", role, name, role)
	}
	return fmt.Errorf("%s", franzGoRefusal(role, name))
}

// franzGoRefusal says that franz-go has no counterpart for a property of
// the other clients, and which clients take it: the words check prints
// for a producer's property whether or not it has a catalogue
// (runbook.FranzGoRefusal).
func franzGoRefusal(role Role, name string) string {
	if role == Producer {
		return fmt.Sprintf("franz-go has no counterpart for %s: use --client java or --client librdkafka", name)
	}
	return fmt.Sprintf("franz-go has no counterpart for %s: use --client java", name)
}

// unknown is the error for a name c lacks in role: the other role's
// property, or a did-you-mean among role's names, noting the other role's
// property the name was likely meant as (value-serializer on a consumer:
// value.deserializer, and value.serializer is a producer property).
func unknown(client, source string, role Role, name string, c catalog) error {
	if _, ok := c[other(role)][name]; ok {
		return fmt.Errorf("%q is a %s property, not a %s one (%s)", name, other(role), role, source)
	}
	msg := fmt.Sprintf("unknown %s %s property %q (%s)", client, role, name, source)
	if s := suggest(name, keys(c[role])); s != "" {
		msg += fmt.Sprintf(": did you mean %q?", s)
	}
	if s := suggest(name, keys(c[other(role)])); s != "" && normalize(s) == normalize(name) {
		msg += fmt.Sprintf(" (%q is a %s property)", s, other(role))
	}
	return fmt.Errorf("%s", msg)
}

// other is the role that is not r.
func other(r Role) Role {
	if r == Producer {
		return Consumer
	}
	return Producer
}

// keys returns m's names.
func keys(m map[string]Property) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	return out
}

// normalize spells a property name the way the clients do, so that
// value-serializer, value_serializer and Value.Serializer all meet
// value.serializer.
func normalize(name string) string {
	return strings.ToLower(strings.NewReplacer("-", ".", "_", ".").Replace(name))
}

// suggest returns the candidate closest to name once both are normalized,
// or "" when none is close enough to be a likely typo.
func suggest(name string, candidates []string) string {
	n := normalize(name)
	best, bestDist := "", max(2, len(n)/4)+1
	for _, c := range candidates {
		if d := typo.Distance(n, normalize(c)); d < bestDist || (d == bestDist && best != "" && c < best) {
			best, bestDist = c, d
		}
	}
	if best == name {
		return ""
	}
	return best
}
