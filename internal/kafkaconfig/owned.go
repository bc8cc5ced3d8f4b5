package kafkaconfig

import "strings"

// owned are the settings kafkabook writes itself for every node, and why a
// runbook cannot change them.
var owned = map[string]string{
	"node.id":                             "the node's identity, which kafkabook assigns (k1 is node 1)",
	"broker.id":                           "the node's identity, which kafkabook assigns (k1 is node 1)",
	"process.roles":                       "the node's roles, which kafkabook sets (every node is broker and controller)",
	"controller.quorum.voters":            "the KRaft quorum, which kafkabook builds from the nodes",
	"controller.quorum.bootstrap.servers": "the KRaft quorum, which kafkabook builds from the nodes",
	"log.dir":                             "a host directory, which kafkabook chooses per node",
	"log.dirs":                            "a host directory, which kafkabook chooses per node",
	"metadata.log.dir":                    "a host directory, which kafkabook chooses per node",
	"config.providers":                    "a config provider, which could read the host's files into settings",
	"security.inter.broker.protocol":      "part of the listeners, which kafkabook sets up",
	"sasl.jaas.config":                    "a JAAS configuration, which loads login modules and can read host files",
	"sasl.kerberos.kinit.cmd":             "a host command the broker would run",
	"metric.reporters":                    "a list of classes to load",
	"kafka.metrics.reporters":             "a list of classes to load",
	"security.providers":                  "a list of classes to load",
}

// Owned returns why a runbook may not set s, or "" when it may: kafkabook
// owns it, or it names a class to load, a host path, or a place outside
// the cluster to reach.
func Owned(s Setting) string {
	n := s.Name
	if why, ok := owned[n]; ok {
		return why
	}
	switch {
	case strings.Contains(n, "listener"):
		return "part of the listeners, which kafkabook sets up"
	case strings.HasPrefix(n, "config.providers."):
		return owned["config.providers"]
	case s.Type == "CLASS" || hasPart(n, "class", "classes"):
		return "a class to load"
	case hasSuffix(n, ".location", ".path", ".dir", ".dirs", ".file", ".files"):
		return "a host path"
	case hasSuffix(n, ".url", ".urls"):
		return "a place outside the cluster to reach"
	}
	return ""
}

// hasPart reports whether one of the dot-separated parts of name is one of parts.
func hasPart(name string, parts ...string) bool {
	for _, p := range strings.Split(name, ".") {
		for _, q := range parts {
			if p == q {
				return true
			}
		}
	}
	return false
}

func hasSuffix(name string, suffixes ...string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}
