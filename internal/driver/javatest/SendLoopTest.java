// SendLoopTest: the producer's loop over a Sender (KafkabookDriver.produce,
// sendOne), which the java driver's KafkaProducer and the spring driver's
// KafkaTemplate share: every message handed over in order with its key and
// value, one outcome line each, a refusal inside send() failed whichever
// way the Sender says it (its callback on the sending thread, or an
// exception), and startup_complete naming the Sender's client.

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;

final class SendLoopTest {
    private SendLoopTest() {
    }

    static final String BYTES = "org.apache.kafka.common.serialization.ByteArraySerializer";

    // Fake is a Sender that keeps what it is given and answers as told.
    static class Fake implements Sender {
        final List<ProducerRecord<byte[], byte[]>> got = new ArrayList<>();
        final List<Callback> callbacks = new ArrayList<>();

        @Override
        public void send(ProducerRecord<byte[], byte[]> rec, Callback cb) {
            got.add(rec);
            callbacks.add(cb);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        @Override
        public void closeNow() {
        }

        @Override
        public KafkabookDriver.Who who() {
            return new KafkabookDriver.Who("fake", "fake-lib", "1.2.3", "java 17, kafka-clients 9.9.9");
        }

        @Override
        public Map<?, ?> configuration() {
            return Map.of("bootstrap.servers", "a:1", "acks", "1", "bogus.y", "z", "key.serializer", BYTES, "value.serializer", BYTES);
        }

        @Override
        public Map<String, String> settings() {
            return Map.of("template.thing", "on");
        }
    }

    // Every message goes to the Sender in order, as produce's own records,
    // and its outcome, whenever the client gives it, is one line.
    static void testProduceThroughSender() {
        Fixture.lines();
        Fake f = new Fake();
        long[] stats = KafkabookDriver.produce(f, Fixture.spec("{\"topic\":\"t\",\"from\":7,\"count\":3,\"keys\":2,\"size\":8}"), System.nanoTime());
        Check.eq(3L, stats[0]);
        Check.eq(3, f.got.size());
        Check.eq(List.of("m-007 ..", "m-008 ..", "m-009 .."), f.got.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList());
        Check.eq(List.of("k1", "k0", "k1"), f.got.stream().map(r -> new String(r.key(), StandardCharsets.UTF_8)).toList());
        Check.eq(0, Fixture.lines().size()); // no outcome yet
        for (int i = 0; i < 3; i++) {
            f.callbacks.get(i).onCompletion(new RecordMetadata(new TopicPartition("t", 1), 40 + i, 0, -1L, -1, -1), null);
        }
        List<Map<String, Object>> got = Fixture.lines();
        Check.eq(3, got.size());
        Check.eq("producer_send_success", got.get(2).get("name"));
        Check.eq(9L, got.get(2).get("n"));
        Check.eq(42L, got.get(2).get("offset"));
    }

    // A client that refuses a record inside send() by calling its callback
    // there (the Java client; Spring's template through its listener):
    // failed, once.
    static void testRefusedThroughCallback() {
        Fixture.lines();
        Fake f = new Fake() {
            @Override
            public void send(ProducerRecord<byte[], byte[]> rec, Callback cb) {
                cb.onCompletion(new RecordMetadata(new TopicPartition("t", 0), -1, 0, -1L, -1, -1), new TimeoutException("Topic t not present in metadata after 100 ms."));
            }
        };
        KafkabookDriver.produce(f, Fixture.spec("{\"topic\":\"t\",\"count\":1}"), System.nanoTime());
        List<Map<String, Object>> got = Fixture.lines();
        Check.eq(1, got.size());
        Check.eq("failed", got.get(0).get("class"));
        Check.eq("REQUEST_TIMED_OUT", got.get(0).get("error"));
    }

    // A refusal thrown from send() (the Java client after close; Spring's
    // template when its client threw): failed, with the exception.
    static void testRefusedByThrowing() {
        Fixture.lines();
        Fake f = new Fake() {
            @Override
            public void send(ProducerRecord<byte[], byte[]> rec, Callback cb) {
                throw new IllegalStateException("closed");
            }
        };
        long[] stats = KafkabookDriver.produce(f, Fixture.spec("{\"topic\":\"t\",\"count\":2}"), System.nanoTime());
        Check.eq(2L, stats[0]);
        List<Map<String, Object>> got = Fixture.lines();
        Check.eq(2, got.size());
        Check.eq("failed", got.get(1).get("class"));
        Check.eq("java.lang.IllegalStateException", got.get(1).get("exception"));
    }

    // The same error answered later, from the client's I/O thread, is
    // classified by what it is: a record too large is refused for certain,
    // a timeout is unknown.
    static void testAnsweredLater() throws InterruptedException {
        Fixture.lines();
        Fake f = new Fake();
        KafkabookDriver.produce(f, Fixture.spec("{\"topic\":\"t\",\"count\":2}"), System.nanoTime());
        Thread io = new Thread(() -> {
            f.callbacks.get(0).onCompletion(null, new TimeoutException("Expiring 1 record(s)"));
            f.callbacks.get(1).onCompletion(null, new RecordTooLargeException("too large"));
        });
        io.start();
        io.join();
        List<Map<String, Object>> got = Fixture.lines();
        Check.eq("unknown", got.get(0).get("class"));
        Check.eq("failed", got.get(1).get("class"));
    }

    // startup_complete names the Sender's client, its configuration in
    // force (ProducerConfig of what the client holds, with its other
    // settings) and the names kafka-clients does not know.
    static void testStartupCompleteOfSender() {
        Fake f = new Fake();
        Map<String, Object> m = KafkabookDriver.Json.parseObject(
                KafkabookDriver.startupComplete(f.who(), f.configuration(), f.settings(), List.of("template.thing")));
        Check.eq("fake", m.get("client"));
        Check.eq("fake-lib", m.get("library"));
        Check.eq("1.2.3", m.get("version"));
        Check.eq("java 17, kafka-clients 9.9.9", m.get("runtime"));
        Map<?, ?> config = (Map<?, ?>) m.get("config");
        Check.eq("1", config.get("acks"));
        Check.eq("false", config.get("enable.idempotence"));
        Check.eq("on", config.get("template.thing"));
        Check.eq(List.of("bogus.y"), m.get("unknown_properties"));
        Check.eq(List.of("template.thing"), m.get("set_by_kafkabook"));
        // The Java client's own line is the same writer's.
        Properties p = new Properties();
        p.put("bootstrap.servers", "a:1");
        p.put("client.id", "kb");
        p.put("key.serializer", BYTES);
        p.put("value.serializer", BYTES);
        Map<String, Object> java = KafkabookDriver.Json.parseObject(KafkabookDriver.startupComplete(KafkabookDriver.Who.java(), p, Map.of(), null));
        Check.eq("java", java.get("client"));
        Check.eq("kafka-clients", java.get("library"));
    }
}
