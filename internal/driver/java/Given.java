import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

// Given is what a spec asks of the client's configuration: the runbook's
// properties ("properties"), each checked against what a runbook may not
// set, and the cluster's access ("access"), which goes in last so that the
// cluster file's credentials reach only the cluster.
//
// The rule is kafkabook's (internal/clientconfig/refuse.go) once more, at
// the driver's start: kafkabook refuses these before a spec goes out, and
// a driver handed a spec another way refuses them too. A runbook is data:
// through a client it may load no class, run no command, read no host file
// and reach no address outside its cluster. GivenTest holds this copy to
// kafkabook's over every property of every catalogue (refusalCases).
final class Given {
    private Given() {}

    // properties are the spec's runbook properties as strings; a property
    // a runbook may not set fails the start, naming it and why.
    @SuppressWarnings("unchecked")
    static Map<String, String> properties(Map<String, Object> raw) {
        Object p = raw.get("properties");
        Map<String, String> out = new TreeMap<>();
        if (p instanceof Map) {
            for (Map.Entry<String, Object> e : ((Map<String, Object>) p).entrySet()) {
                String v = String.valueOf(e.getValue());
                String why = refused(e.getKey(), v);
                if (why != null) {
                    throw new IllegalArgumentException("a runbook may not set " + e.getKey() + ": it " + why);
                }
                out.put(e.getKey(), v);
            }
        }
        return out;
    }

    // access are the properties that make the client reach the cluster as
    // its access says (security protocol, trust, SASL login), set last.
    @SuppressWarnings("unchecked")
    static Map<String, String> access(Map<String, Object> raw) {
        Object p = raw.get("access");
        Map<String, String> out = new HashMap<>();
        if (p instanceof Map) {
            for (Map.Entry<String, Object> e : ((Map<String, Object>) p).entrySet()) {
                out.put(e.getKey(), String.valueOf(e.getValue()));
            }
        }
        return out;
    }

    static final Map<String, String> OWNED = Map.of(
            "bootstrap.servers", "is where the client connects, which the cluster decides",
            "metadata.broker.list", "is where the client connects, which the cluster decides",
            "security.protocol", "is how the client connects, which the cluster's access decides",
            "group.id", "is the group, which kafkabook sets",
            "transactional.id", "is the transactional id, which kafkabook sets",
            "config.providers", "loads config providers, which read host files and the environment",
            "metric.reporters", "names classes to load",
            "security.providers", "names classes to load",
            "interceptors", "sets interceptor plugins, native code",
            "plugin.library.paths", "loads native libraries into the client");

    // BUILTIN_CLASSES may name kafka-clients' own classes (org.apache.kafka.*).
    static final Set<String> BUILTIN_CLASSES = Set.of("key.serializer", "value.serializer", "key.deserializer",
            "value.deserializer", "partitioner.class", "partition.assignment.strategy");

    // API_ONLY are settings only the client's API can make (callbacks,
    // objects) whose names do not end in _cb.
    static final Set<String> API_ONLY = Set.of("opaque", "default_topic_conf", "msg_order_cmp");

    // refused says why a runbook may not set name to value, or null.
    static String refused(String name, String value) {
        String owned = OWNED.get(name);
        if (owned != null) {
            return owned;
        }
        List<String> parts = List.of(name.toLowerCase(Locale.ROOT).split("[._]+"));
        String last = parts.isEmpty() ? "" : parts.get(parts.size() - 1);
        boolean builtin = BUILTIN_CLASSES.contains(name) && allBuiltin(value);
        if (name.startsWith("config.providers.")) {
            return OWNED.get("config.providers");
        }
        if (has(parts, "ssl", "sasl", "https", "oauthbearer", "kerberos", "jaas")) {
            return "sets how the client authenticates or encrypts, which the cluster's access decides";
        }
        if (has(parts, "cmd", "command", "exec")) {
            return "names a host command for the client to run";
        }
        if (last.equals("cb") || API_ONLY.contains(name)) {
            return "sets a callback or object only the client's own API can, which loads code";
        }
        if (isClass(name) || has(parts, "class", "classes")
                || (BUILTIN_CLASSES.contains(name) && value.contains("."))) {
            return builtin ? null : "names classes to load (kafka-clients' own org.apache.kafka classes excepted)";
        }
        if (has(parts, "location", "path", "paths", "file", "files", "dir", "dirs", "keytab")) {
            return "names a host path";
        }
        if (has(parts, "url", "urls", "uri", "endpoint")) {
            return "names a place outside the cluster to reach";
        }
        return null;
    }

    // isClass says whether kafka-clients types name a class (a producer's
    // or a consumer's CLASS setting).
    static boolean isClass(String name) {
        for (ConfigDef def : List.of(ProducerConfig.configDef(), ConsumerConfig.configDef())) {
            ConfigDef.ConfigKey k = def.configKeys().get(name);
            if (k != null && k.type == ConfigDef.Type.CLASS) {
                return true;
            }
        }
        return false;
    }

    static boolean has(List<String> parts, String... words) {
        for (String w : words) {
            if (parts.contains(w)) {
                return true;
            }
        }
        return false;
    }

    static boolean allBuiltin(String value) {
        for (String c : value.split(",", -1)) {
            if (!c.strip().startsWith("org.apache.kafka.")) {
                return false;
            }
        }
        return true;
    }
}
