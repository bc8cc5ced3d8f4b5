// ProducerLinesTest: the lines the producer writes (docs/driver-protocol.md:
// producer_send_success, producer_send_error with its class,
// transaction_end, startup_complete), the records it builds from the spec
// and Out, which batches the lines to stdout.

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;

final class ProducerLinesTest {
    private ProducerLinesTest() {
    }

    // md is what the client reports for a record written at offset (or -1:
    // none, with acks=0) of partition p.
    static RecordMetadata md(int p, long offset) {
        return new RecordMetadata(new TopicPartition("t", p), offset, 0, -1L, -1, -1);
    }

    static void testSendSuccess() {
        KafkabookDriver.Report r = new KafkabookDriver.Report("t", 42, null, 21_000_000L, 0);
        Check.eq("{\"name\":\"producer_send_success\",\"n\":42,\"topic\":\"t\",\"partition\":2,\"offset\":1041,"
                + "\"key\":null,\"value\":\"m-042\",\"intended_ns\":21000000,\"ack_ns\":23456789}",
                r.line(md(2, 1041), null, 23_456_789L).toString());
    }

    // With acks=0 the client knows no offset: -1.
    static void testSendSuccessWithoutOffset() {
        KafkabookDriver.Report r = new KafkabookDriver.Report("t\"x", 7, "k\\1", 0, 0);
        Check.eq("{\"name\":\"producer_send_success\",\"n\":7,\"topic\":\"t\\\"x\",\"partition\":0,\"offset\":-1,"
                + "\"key\":\"k\\\\1\",\"value\":\"m-007\",\"intended_ns\":0,\"ack_ns\":5}",
                r.line(md(0, -1), null, 5).toString());
    }

    // A timeout from the client's I/O thread may have been written:
    // unknown, with Kafka's name of the error.
    static void testSendErrorUnknown() {
        KafkabookDriver.Report r = new KafkabookDriver.Report("t", 43, "k1", 21_500_000L, 0);
        Check.eq("{\"name\":\"producer_send_error\",\"n\":43,\"topic\":\"t\",\"partition\":-1,\"offset\":-1,"
                + "\"class\":\"unknown\",\"error\":\"REQUEST_TIMED_OUT\",\"exception\":\"org.apache.kafka.common.errors.TimeoutException\","
                + "\"message\":\"Expiring 1 record(s) for t-0:3000 ms has passed since batch creation\","
                + "\"key\":\"k1\",\"value\":\"m-043\",\"intended_ns\":21500000,\"ack_ns\":3021500000}",
                r.line(null, new TimeoutException("Expiring 1 record(s) for t-0:3000 ms has passed since batch creation"), 3_021_500_000L).toString());
    }

    // NOT_ENOUGH_REPLICAS is checked before the append: failed, on the
    // partition the client names.
    static void testSendErrorFailed() {
        KafkabookDriver.Report r = new KafkabookDriver.Report("t", 1000, null, 1, 0);
        String line = r.line(md(1, -1), new NotEnoughReplicasException("Messages are rejected since there are fewer in-sync replicas than required."), 2).toString();
        Check.eq("{\"name\":\"producer_send_error\",\"n\":1000,\"topic\":\"t\",\"partition\":1,\"offset\":-1,"
                + "\"class\":\"failed\",\"error\":\"NOT_ENOUGH_REPLICAS\",\"exception\":\"org.apache.kafka.common.errors.NotEnoughReplicasException\","
                + "\"message\":\"Messages are rejected since there are fewer in-sync replicas than required.\","
                + "\"key\":null,\"value\":\"m-1000\",\"intended_ns\":1,\"ack_ns\":2}", line);
    }

    // A completion on the sending thread while send() runs is a record
    // refused before the client's buffer: failed, whatever the error.
    static void testRefusedInSend() {
        KafkabookDriver.Report r = new KafkabookDriver.Report("t", 1, null, 0, 0);
        r.inSend = true;
        Map<String, Object> m = KafkabookDriver.Json.parseObject(r.line(null, new TimeoutException("Topic t not present in metadata after 60000 ms."), 9).toString());
        Check.eq("failed", m.get("class"));
        Check.eq("REQUEST_TIMED_OUT", m.get("error"));
    }

    // The same completion on another thread (inSend still set while the
    // I/O thread completes it) is no refusal: unknown.
    static void testInSendOtherThread() throws InterruptedException {
        KafkabookDriver.Report r = new KafkabookDriver.Report("t", 1, null, 0, 0);
        r.inSend = true;
        String[] line = new String[1];
        Thread io = new Thread(() -> line[0] = r.line(null, new TimeoutException("x"), 9).toString());
        io.start();
        io.join();
        Check.eq("unknown", KafkabookDriver.Json.parseObject(line[0]).get("class"));
    }

    // An error of the client's own, with no message and no Kafka name.
    static void testSendErrorOfTheClient() {
        KafkabookDriver.Report r = new KafkabookDriver.Report("t", 5, null, 0, 0);
        Map<String, Object> m = KafkabookDriver.Json.parseObject(r.line(null, new IllegalStateException(), 1).toString());
        Check.eq("unknown", m.get("class"));
        Check.eq("", m.get("error"));
        Check.eq("java.lang.IllegalStateException", m.get("exception"));
        Check.eq("null", m.get("message"));
    }

    // A record has one outcome: a second completion from the client (seen
    // after a transaction coordinator bumped the epoch) writes no line.
    static void testOneOutcome() {
        KafkabookDriver.Out out = KafkabookDriver.out;
        synchronized (out) {
            out.buf.setLength(0);
        }
        KafkabookDriver.Report r = new KafkabookDriver.Report("t", 77, null, 0, 0);
        r.onCompletion(md(0, 5), null);
        r.onCompletion(null, new TimeoutException("again"));
        String got;
        synchronized (out) {
            got = out.buf.toString();
            out.buf.setLength(0);
        }
        Check.eq(1, got.split("\n", -1).length - 1);
        Check.that(got.startsWith("{\"name\":\"producer_send_success\",\"n\":77,"), got);
    }

    static void testClassify() {
        Check.eq("\"failed\"", KafkabookDriver.classify(new RecordTooLargeException("too large")));
        Check.eq("\"failed\"", KafkabookDriver.classify(new NotEnoughReplicasException("x")));
        Check.eq("\"unknown\"", KafkabookDriver.classify(new TimeoutException("x")));
        Check.eq("\"unknown\"", KafkabookDriver.classify(new RuntimeException("x")));
        Check.eq("MESSAGE_TOO_LARGE", KafkabookDriver.errorName(new RecordTooLargeException("too large")));
        Check.eq("", KafkabookDriver.errorName(new org.apache.kafka.common.errors.ApiException("no name")));
    }

    static void testTransactionEnd() {
        Check.eq("{\"name\":\"transaction_end\",\"txn\":3,\"first\":21,\"count\":10,\"outcome\":\"aborted\",\"on_purpose\":false,"
                + "\"producer_id\":1000,\"epoch\":2,\"error\":\"NOT_ENOUGH_REPLICAS: \\\"x\\\"\",\"start_ns\":5,\"end_ns\":9}",
                KafkabookDriver.Txn.endLine(3, 21, 10, "aborted", false, 1000, 2, "NOT_ENOUGH_REPLICAS: \"x\"", 5, 9));
    }

    // value is the message's id, then a blank and filler up to size when
    // there is room for both.
    static void testValues() {
        KafkabookDriver.Spec s = Fixture.spec("{\"topic\":\"t\",\"size\":10}");
        Check.eq("m-001 ....", new String(s.value(1), StandardCharsets.UTF_8));
        Check.eq("m-12345678", new String(s.value(12_345_678), StandardCharsets.UTF_8));
        Check.eq("m-000", new String(Fixture.spec("{\"topic\":\"t\"}").value(0), StandardCharsets.UTF_8));
        Check.eq("m-099", new String(Fixture.spec("{\"topic\":\"t\",\"size\":6}").value(99), StandardCharsets.UTF_8));
        Check.eq("m-099 .", new String(Fixture.spec("{\"topic\":\"t\",\"size\":7}").value(99), StandardCharsets.UTF_8));
    }

    static void testKeysAndRecord() {
        KafkabookDriver.Spec s = Fixture.spec("{\"topic\":\"t\",\"keys\":3,\"event_id\":\"ev-1\"}");
        Check.eq(List.of("k1", "k2", "k0"), List.of(s.keyOf(1), s.keyOf(2), s.keyOf(3)));
        ProducerRecord<byte[], byte[]> rec = KafkabookDriver.record(s, 4, s.keyOf(4));
        Check.eq("t", rec.topic());
        Check.eq(null, rec.partition());
        Check.eq("k1", new String(rec.key(), StandardCharsets.UTF_8));
        Check.eq("ev-1", new String(rec.headers().lastHeader("event-id").value(), StandardCharsets.UTF_8));
        KafkabookDriver.Spec fixed = Fixture.spec("{\"topic\":\"t\",\"key\":\"same\"}");
        Check.eq("same", fixed.keyOf(9));
        ProducerRecord<byte[], byte[]> none = KafkabookDriver.record(Fixture.spec("{\"topic\":\"t\"}"), 1, null);
        Check.eq(null, none.key());
        Check.eq(null, none.headers().lastHeader("event-id"));
    }

    static void testNoTopic() {
        RuntimeException e = Check.fails(() -> Fixture.spec("{\"count\":1}"));
        Check.eq("spec has no topic", e.getMessage());
    }

    // A short delivery timeout lowers the request timeout below it (the
    // client refuses delivery.timeout.ms < linger.ms + request.timeout.ms),
    // unless the spec sets the request timeout itself.
    static void testDeliveryTimeout() {
        Properties p = Fixture.spec("{\"topic\":\"t\",\"bootstrap_servers\":[\"a:1\",\"b:2\"],"
                + "\"transactional_id\":\"tx-1\",\"properties\":{\"acks\":\"1\",\"delivery.timeout.ms\":\"10000\",\"linger.ms\":\"20\"}}").properties();
        // What kafkabook set itself is said at startup_complete.
        KafkabookDriver.Spec s = Fixture.spec("{\"topic\":\"t\",\"bootstrap_servers\":[\"a:1\"],"
                + "\"transactional_id\":\"tx-1\",\"properties\":{\"delivery.timeout.ms\":\"10000\",\"linger.ms\":\"20\"}}");
        Map<String, Object> m = KafkabookDriver.Json.parseObject(KafkabookDriver.startupComplete(KafkabookDriver.Who.java(), s.properties(), Map.of(), s.setByUs));
        Check.eq(List.of("key.serializer", "request.timeout.ms", "transactional.id", "value.serializer"), m.get("set_by_kafkabook"));
        Check.eq("a:1,b:2", p.getProperty("bootstrap.servers"));
        Check.eq("1", p.getProperty("acks"));
        Check.eq("10000", p.getProperty("delivery.timeout.ms"));
        Check.eq("9980", p.getProperty("request.timeout.ms"));
        Check.eq("tx-1", p.getProperty("transactional.id"));
        Properties given = Fixture.spec("{\"topic\":\"t\",\"bootstrap_servers\":[\"a:1\"],"
                + "\"properties\":{\"delivery.timeout.ms\":\"5000\",\"request.timeout.ms\":\"30000\"}}").properties();
        Check.eq("30000", given.getProperty("request.timeout.ms"));
        Properties long_ = Fixture.spec("{\"topic\":\"t\",\"bootstrap_servers\":[\"a:1\"],\"properties\":{\"delivery.timeout.ms\":\"120000\"}}").properties();
        Check.eq(null, long_.getProperty("request.timeout.ms"));
    }

    // startup_complete names the client and the configuration in force,
    // secrets hidden, and the property names the client does not know.
    static void testStartupComplete() {
        Properties p = Fixture.spec("{\"topic\":\"t\",\"bootstrap_servers\":[\"127.0.0.1:9\"],"
                + "\"properties\":{\"acks\":\"1\",\"bogus.x\":\"y\",\"client.id\":\"kb\"},\"access\":{\"ssl.key.password\":\"hunter2\"}}").properties();
        Map<String, Object> m = KafkabookDriver.Json.parseObject(KafkabookDriver.startupComplete(KafkabookDriver.Who.java(), p, Map.of(), null));
        Check.eq(List.of("name", "client", "library", "version", "runtime", "config", "unknown_properties"), List.copyOf(m.keySet()));
        Check.eq("startup_complete", m.get("name"));
        Check.eq("java", m.get("client"));
        Check.eq("kafka-clients", m.get("library"));
        Check.that(String.valueOf(m.get("version")).matches("\\d+\\.\\d+\\.\\d+"), "version: " + m.get("version"));
        Check.eq("java " + System.getProperty("java.version"), m.get("runtime"));
        Map<?, ?> config = (Map<?, ?>) m.get("config");
        Check.eq("1", config.get("acks"));
        Check.eq("kb", config.get("client.id"));
        Check.eq("false", config.get("enable.idempotence")); // the client's adjustment for acks=1
        Check.eq("[hidden]", config.get("ssl.key.password"));
        Check.eq("org.apache.kafka.common.serialization.ByteArraySerializer", config.get("key.serializer"));
        Check.that(config.containsKey("transactional.id") && config.get("transactional.id") == null, "unset transactional.id: null");
        Check.eq(List.copyOf(new java.util.TreeSet<>(ProducerConfig.configNames())), List.copyOf(config.keySet()));
        Check.eq(List.of("bogus.x"), m.get("unknown_properties"));
    }

    static void testConfigValue() {
        Check.eq(null, KafkabookDriver.configValue("x", null));
        Check.eq("[hidden]", KafkabookDriver.configValue("sasl.client.secret", "s"));
        Check.eq("java.lang.String", KafkabookDriver.configValue("x", String.class));
        Check.eq("java.lang.String,a", KafkabookDriver.configValue("x", List.of(String.class, "a")));
        Check.eq("5", KafkabookDriver.configValue("x", 5));
    }

    // Out holds lines until flushed (the flusher's 50 ms, or 64 KiB in
    // hand), then writes them in order, each on its own line.
    static void testOut() {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        KafkabookDriver.Out out = new KafkabookDriver.Out(sink);
        out.line("{\"a\":1}");
        out.line(new StringBuilder("{\"b\":\"\u00e9\"}"));
        Check.eq(0, sink.size());
        out.flush();
        Check.eq("{\"a\":1}\n{\"b\":\"\u00e9\"}\n", sink.toString(StandardCharsets.UTF_8));
        String big = "x".repeat(1 << 16);
        out.line(big);
        Check.eq("{\"a\":1}\n{\"b\":\"\u00e9\"}\n" + big + "\n", sink.toString(StandardCharsets.UTF_8));
    }
}
