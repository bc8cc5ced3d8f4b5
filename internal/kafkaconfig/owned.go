package kafkaconfig

import "strings"

// owned are the settings kafkabook writes itself for every node, or that
// reach outside the cluster, and why a runbook cannot set them: each
// reason completes "NAME ...".
var owned = map[string]string{
	"node.id":                             "is the node's identity, which kafkabook assigns (k1 is node 1)",
	"broker.id":                           "is the node's identity, which kafkabook assigns (k1 is node 1)",
	"process.roles":                       "is the node's roles, which kafkabook sets (every node is broker and controller)",
	"controller.quorum.voters":            "is the KRaft quorum, which kafkabook builds from the nodes",
	"controller.quorum.bootstrap.servers": "is the KRaft quorum, which kafkabook builds from the nodes",
	"log.dir":                             "names a host directory, which kafkabook chooses per node",
	"log.dirs":                            "names a host directory, which kafkabook chooses per node",
	"metadata.log.dir":                    "names a host directory, which kafkabook chooses per node",
	"config.providers":                    "loads config providers, which could read the host's files into settings",
	"security.inter.broker.protocol":      "sets up listeners, which kafkabook owns",
	"sasl.jaas.config":                    "loads login modules, which can read host files",
	"sasl.kerberos.kinit.cmd":             "names a host command for the broker to run",
	"metric.reporters":                    "names classes to load",
	"kafka.metrics.reporters":             "names classes to load",
	"security.providers":                  "names classes to load",
}

// Owned returns why a runbook may not set s, completing "NAME ...", or ""
// when it may: kafkabook owns it, or it names a class to load, a host path,
// or a place outside the cluster to reach.
func Owned(s Setting) string {
	n := s.Name
	if why, ok := owned[n]; ok {
		return why
	}
	switch {
	case strings.Contains(n, "listener"):
		return "sets up listeners, which kafkabook owns"
	case strings.HasPrefix(n, "config.providers."):
		return owned["config.providers"]
	case s.Type == "CLASS" || hasPart(n, "class", "classes"):
		return "names a class to load"
	case hasSuffix(n, ".location", ".path", ".dir", ".dirs", ".file", ".files"):
		return "names a host path"
	case hasSuffix(n, ".url", ".urls"):
		return "names a place outside the cluster to reach"
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
