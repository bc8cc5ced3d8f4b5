// MemberLinesTest: the events a consumer group member and a transform
// member write (docs/driver-protocol.md, "Consumer group members"), their
// startup_complete, and what they read from a record and their spec.

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.ProducerFencedException;

final class MemberLinesTest {
    private MemberLinesTest() {
    }

    // at is the event's instant, as Instant writes it (ISO 8601, UTC); the
    // rest of the line is the event's, in the protocol's order.
    static String rest(String line, Instant before) {
        Check.that(line.startsWith("{\"at\":\""), "line starts with at: " + line);
        int end = line.indexOf('"', 7);
        Instant at = Instant.parse(line.substring(7, end));
        Check.that(!at.isBefore(before) && !at.isAfter(Instant.now()), "at " + at + " is not now");
        return line.substring(end + 2);
    }

    static void testEvents() {
        Instant t = Instant.now();
        Check.eq("\"member\":2,\"kind\":\"deliver\",\"partition\":1,\"offset\":5,\"id\":\"m-001\"}",
                rest(Member.Events.eventLine(2, "deliver", 1, 5, "m-001", null), t));
        Check.eq("\"member\":1,\"kind\":\"effect\",\"partition\":0,\"offset\":0,\"id\":\"m-002\",\"event\":\"ev \\\"2\\\"\"}",
                rest(Member.Events.eventLine(1, "effect", 0, 0, "m-002", "ev \"2\""), t));
        Check.eq("\"member\":3,\"kind\":\"commit\",\"partition\":4,\"offset\":100}",
                rest(Member.Events.eventLine(3, "commit", 4, 100, null, null), t));
    }

    // A fenced transform member names Kafka's error and the record whose
    // derived write was refused.
    static void testFenced() {
        Instant t = Instant.now();
        Check.eq("\"member\":2,\"kind\":\"fenced\",\"partition\":-1,\"offset\":-1,\"id\":\"m-006\","
                + "\"error\":\"PRODUCER_FENCED: There is a newer producer with the same transactionalId\"}",
                rest(Transform.fencedLine(2, new ProducerFencedException("There is a newer producer with the same transactionalId"), "m-006"), t));
        Check.eq("\"member\":1,\"kind\":\"fenced\",\"partition\":-1,\"offset\":-1,\"error\":\"java.lang.IllegalStateException: null\"}",
                rest(Transform.fencedLine(1, new IllegalStateException(), null), t));
    }

    static void testStartupComplete() {
        Properties props = new Properties();
        props.put("group.id", "g");
        props.put("bogus.y", "1");
        Map<String, Object> values = new java.util.HashMap<>();
        values.put("group.id", "g");
        values.put("sasl.jaas.config.password", "p");
        values.put("container.ackMode", "BATCH");
        values.put("none", null);
        Map<String, Object> m = KafkabookDriver.Json.parseObject(
                Member.startupComplete("spring", "spring-kafka", "4.1.2", "java 17, kafka-clients 4.2.2", props, values));
        Check.eq("startup_complete", m.get("name"));
        Check.eq("spring", m.get("client"));
        Check.eq("spring-kafka", m.get("library"));
        Check.eq("4.1.2", m.get("version"));
        Check.eq("java 17, kafka-clients 4.2.2", m.get("runtime"));
        Map<?, ?> config = (Map<?, ?>) m.get("config");
        Check.eq(List.of("container.ackMode", "group.id", "none", "sasl.jaas.config.password"), List.copyOf(config.keySet()));
        Check.eq("[hidden]", config.get("sasl.jaas.config.password"));
        Check.that(config.containsKey("none") && config.get("none") == null, "unset value: null");
        Check.eq(List.of("bogus.y"), m.get("unknown_properties"));
    }

    static ConsumerRecord<byte[], byte[]> record(String key, String value, String event) {
        ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>("t", 0, 7, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
        if (event != null) {
            r.headers().add("event-id", event.getBytes(StandardCharsets.UTF_8));
        }
        return r;
    }

    // A record's id is its value up to the first blank; its event id the
    // event-id header, else the id.
    static void testRecordIds() {
        ConsumerRecord<byte[], byte[]> r = record("p-1", "m-042 ......", null);
        Check.eq("m-042", Member.Handler.messageId(r));
        Check.eq("m-042", Member.Handler.eventId(r));
        Check.eq("p-1", Member.Handler.key(r));
        ConsumerRecord<byte[], byte[]> h = record(null, "m-043", "ev-9");
        Check.eq("m-043", Member.Handler.messageId(h));
        Check.eq("ev-9", Member.Handler.eventId(h));
        Check.eq("", Member.Handler.key(h));
        Check.eq("", Member.Handler.messageId(record(null, null, null)));
    }

    static Map<String, Object> memberSpec(String extra) {
        return KafkabookDriver.Json.parseObject("{\"role\":\"member\",\"client\":\"java\",\"bootstrap_servers\":[\"10.0.0.1:9092\"],"
                + "\"topic\":\"likes\",\"group\":\"g\",\"store\":\"/tmp/s.db\"" + extra + "}");
    }

    static void testMemberSpec() {
        Member.MemberSpec s = new Member.MemberSpec(memberSpec(",\"commit\":\"auto\",\"auto_commit_ms\":250,\"batch\":5,"
                + "\"properties\":{\"session.timeout.ms\":\"6000\"}"));
        Properties p = s.consumerProperties();
        Check.eq("10.0.0.1:9092", p.getProperty("bootstrap.servers"));
        Check.eq("true", p.getProperty("enable.auto.commit"));
        Check.eq("250", p.getProperty("auto.commit.interval.ms"));
        Check.eq("5", p.getProperty("max.poll.records"));
        Check.eq("6000", p.getProperty("session.timeout.ms"));
        Check.eq("Member$Commits", p.getProperty("interceptor.classes"));
        RuntimeException refused = Check.fails(() -> new Member.MemberSpec(memberSpec(",\"properties\":{\"interceptor.classes\":\"their.Interceptor\"}")));
        Check.that(refused.getMessage().contains("interceptor.classes"), refused.getMessage());
        Member.MemberSpec d = new Member.MemberSpec(memberSpec(""));
        Check.eq(List.of("after", "none", 1, 10, false), List.of(d.commit, d.dedup, d.member, d.batch, d.handoff));
        Check.eq("false", d.consumerProperties().getProperty("enable.auto.commit"));
        Check.eq("Member$Commits", d.consumerProperties().getProperty("interceptor.classes"));
        RuntimeException e = Check.fails(() -> new Member.MemberSpec(KafkabookDriver.Json.parseObject("{\"topic\":\"likes\"}")));
        Check.eq("member spec needs topic, group and store", e.getMessage());
    }

    static void testTransformSpec() {
        Map<String, Object> m = KafkabookDriver.Json.parseObject("{\"role\":\"transform\",\"bootstrap_servers\":[\"a:1\"],"
                + "\"in\":\"i\",\"out\":\"o\",\"group\":\"g\",\"eos\":true,\"txn_id\":\"tx\",\"transaction_timeout_ms\":10000}");
        Transform.Spec s = new Transform.Spec(m);
        Properties pp = s.producerProperties();
        Check.eq("tx", pp.getProperty("transactional.id"));
        Check.eq("10000", pp.getProperty("transaction.timeout.ms"));
        Check.eq("read_committed", s.consumerProperties().getProperty("isolation.level"));
        m.remove("txn_id");
        RuntimeException e = Check.fails(() -> new Transform.Spec(m));
        Check.eq("transform spec needs in, out, group, txn_id with eos and store with effect", e.getMessage());
    }
}
