// DumpClientConfig prints kafka-clients' own catalogue of producer or
// consumer properties, one a line: name, type, validator and default,
// separated by tabs, sorted by name. It reads ProducerConfig.configDef() or
// ConsumerConfig.configDef() (public static in every 4.x), so the list is
// the client's, not one typed by hand.
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

public class DumpClientConfig {
    public static void main(String[] args) {
        ConfigDef def;
        if (args.length == 1 && args[0].equals("producer")) {
            def = ProducerConfig.configDef();
        } else if (args.length == 1 && args[0].equals("consumer")) {
            def = ConsumerConfig.configDef();
        } else {
            System.err.println("usage: DumpClientConfig producer|consumer");
            System.exit(2);
            return;
        }
        for (Map.Entry<String, ConfigDef.ConfigKey> e : new TreeMap<>(def.configKeys()).entrySet()) {
            ConfigDef.ConfigKey k = e.getValue();
            String valid = k.validator == null ? "" : k.validator.toString();
            String dflt = !k.hasDefault() || k.defaultValue == null ? "" : String.valueOf(k.defaultValue);
            if (k.type == ConfigDef.Type.PASSWORD) {
                dflt = "";
            }
            System.out.println(e.getKey() + "\t" + k.type + "\t" + oneLine(valid) + "\t" + oneLine(dflt));
        }
    }

    private static String oneLine(String s) {
        return s.replaceAll("\\s+", " ").trim();
    }
}
