// GivenTest: the driver refuses at start what kafkabook refuses in check
// (Given.refused against internal/clientconfig's rule), and the cluster's
// access goes in over the runbook's properties.

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

final class GivenTest {
    private GivenTest() {
    }

    // Every property of every java catalogue, with the answer kafkabook's
    // rule gives: a file javacheck_test.go writes (refusalCases) and names
    // in KAFKABOOK_REFUSAL_CASES, lines of name, value and 1 (refused) or 0.
    static void testAgreesWithKafkabook() throws Exception {
        String path = System.getenv("KAFKABOOK_REFUSAL_CASES");
        Check.that(path != null && !path.isEmpty(), "KAFKABOOK_REFUSAL_CASES names the cases (javacheck_test.go sets it)");
        List<String> lines = Files.readAllLines(Path.of(path), StandardCharsets.UTF_8);
        int n = 0;
        StringBuilder wrong = new StringBuilder();
        for (String line : lines) {
            String[] f = line.split("\t", -1);
            if (f.length != 4 || !f[0].equals("java")) {
                continue;
            }
            n++;
            boolean refused = Given.refused(f[1], f[2]) != null;
            if (refused != f[3].equals("1")) {
                wrong.append("\n  ").append(f[1]).append('=').append(f[2]).append(": kafkabook ")
                        .append(f[3].equals("1") ? "refuses" : "allows").append(", the driver does not");
            }
        }
        Check.that(n > 100, "cases for java: " + n);
        Check.that(wrong.length() == 0, "the driver's rule differs from kafkabook's:" + wrong);
    }

    // A refused property fails the start, naming it; the access wins over
    // what the runbook may set.
    static void testRefusesAtStart() {
        RuntimeException e = Check.fails(() -> Given.properties(Map.of("properties", Map.of("sasl.jaas.config", "x"))));
        Check.that(e.getMessage().contains("sasl.jaas.config"), e.getMessage());
        Properties p = Fixture.spec("{\"topic\":\"t\",\"bootstrap_servers\":[\"a:1\"],"
                + "\"properties\":{\"linger.ms\":\"7\"},\"access\":{\"security.protocol\":\"SASL_SSL\"}}").properties();
        Check.eq("7", p.getProperty("linger.ms"));
        Check.eq("SASL_SSL", p.getProperty("security.protocol"));
    }
}
