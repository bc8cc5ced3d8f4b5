package clientconfig

import (
	"strings"
)

// A runbook is data, not code: without --allow-shell it may run nothing
// on the host, read no host file and reach no address outside its
// cluster. Client properties are where a client does all three (a
// librdkafka plugin is dlopen()ed, a JAAS login module is a class,
// sasl.kerberos.kinit.cmd is a shell command, an OAuth token endpoint is
// any URL), so a property is refused when it does any of them, when it
// changes where or how the client connects (the cluster's access decides
// that: the cluster file's credentials must never go elsewhere), or when
// kafkabook sets it itself. The rule reads names and catalogue types, not
// a list of every property, so a new release's properties are classified
// too; TestRefusedGolden lists every catalogue's refusals for review.

// owned are the properties kafkabook sets or the cluster's access
// decides, each reason completing "NAME ...".
var owned = map[string]string{
	"bootstrap.servers":    "is where the client connects, which the cluster decides",
	"metadata.broker.list": "is where the client connects, which the cluster decides",
	"security.protocol":    "is how the client connects, which the cluster's access decides (the cluster file)",
	"group.id":             "is the group, which kafkabook sets from --group with the run's suffix",
	"transactional.id":     "is the transactional id, which kafkabook sets per run and step (--transactional)",
	"config.providers":     "loads config providers, which read host files and the environment into properties",
	"metric.reporters":     "names classes to load",
	"security.providers":   "names classes to load",
	"interceptors":         "sets interceptor plugins, native code",
	"plugin.library.paths": "loads native libraries into the client",
}

// builtinClasses are the class properties whose values may be classes of
// kafka-clients itself (org.apache.kafka.*): its serializers, partitioners
// and assignors load nothing from outside the client.
var builtinClasses = map[string]bool{
	"key.serializer": true, "value.serializer": true, "key.deserializer": true, "value.deserializer": true,
	"partitioner.class": true, "partition.assignment.strategy": true,
}

// Refused returns why a runbook may not set the property name to value,
// completing "NAME ...", or "" when it may. p is the property's catalogue
// entry (its Type tells classes and callbacks), the zero Property for a
// name no catalogue has (--allow-unknown): the name alone decides then.
func Refused(p Property, name, value string) string {
	if why, ok := owned[name]; ok {
		return why
	}
	parts := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '.' || r == '_' })
	has := func(words ...string) bool {
		for _, part := range parts {
			for _, w := range words {
				if part == w {
					return true
				}
			}
		}
		return false
	}
	last := ""
	if len(parts) > 0 {
		last = parts[len(parts)-1]
	}
	switch {
	case strings.HasPrefix(name, "config.providers."):
		return owned["config.providers"]
	case has("ssl", "sasl", "https", "oauthbearer", "kerberos", "jaas"):
		return "sets how the client authenticates or encrypts, which the cluster's access decides (the cluster file): its keys, trust, logins and commands are the host's"
	case has("cmd", "command", "exec"):
		return "names a host command for the client to run"
	case p.Type == "see dedicated API" || last == "cb" || name == "opaque" || name == "default_topic_conf":
		return "sets a callback or object only the client's own API can, which loads code"
	case p.Type == "CLASS" || has("class", "classes"):
		if builtinClasses[name] && allBuiltin(value) {
			return ""
		}
		return "names classes to load (kafka-clients' own org.apache.kafka serializers, partitioners and assignors excepted)"
	case builtinClasses[name] && strings.Contains(value, "."):
		if allBuiltin(value) {
			return ""
		}
		return "names classes to load (kafka-clients' own org.apache.kafka serializers, partitioners and assignors excepted)"
	case has("location", "path", "paths", "file", "files", "dir", "dirs", "keytab"):
		return "names a host path"
	case has("url", "urls", "uri", "endpoint"):
		return "names a place outside the cluster to reach"
	}
	return ""
}

// allBuiltin reports whether every class of a comma-separated value is
// one of kafka-clients' own.
func allBuiltin(value string) bool {
	for _, c := range strings.Split(value, ",") {
		if !strings.HasPrefix(strings.TrimSpace(c), "org.apache.kafka.") {
			return false
		}
	}
	return true
}
