// DumpConfig prints a Kafka release's own catalogue of settings, one a line:
// name, type and validator, separated by tabs, sorted by name. "broker"
// prints kafka.server.KafkaConfig.configDef(), "topic" prints
// org.apache.kafka.storage.internals.log.LogConfig.configKeys(). Both are
// looked up by reflection so that one source compiles against every 4.x.
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;

public class DumpConfig {
    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        Map<String, ConfigDef.ConfigKey> keys;
        if (args.length == 1 && args[0].equals("broker")) {
            Object def = Class.forName("kafka.server.KafkaConfig").getMethod("configDef").invoke(null);
            keys = ((ConfigDef) def).configKeys();
        } else if (args.length == 1 && args[0].equals("topic")) {
            Object m = Class.forName("org.apache.kafka.storage.internals.log.LogConfig").getMethod("configKeys").invoke(null);
            keys = (Map<String, ConfigDef.ConfigKey>) m;
        } else {
            System.err.println("usage: DumpConfig broker|topic");
            System.exit(2);
            return;
        }
        for (Map.Entry<String, ConfigDef.ConfigKey> e : new TreeMap<>(keys).entrySet()) {
            ConfigDef.ConfigKey k = e.getValue();
            String valid = k.validator == null ? "" : k.validator.toString();
            System.out.println(e.getKey() + "\t" + k.type + "\t" + valid.replaceAll("\\s+", " "));
        }
    }
}
