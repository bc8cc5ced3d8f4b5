// SpringProducerTest: the spring driver's producer (SpringProducer) without
// a broker: what startup_complete says of Spring Kafka and the client in
// force, the refusal of a transactional spec, one outcome line for a record
// the client refuses inside send() (Spring throws after its listener heard
// it), and a send after the stop refused rather than sent by a new
// producer. Compiled and run against spring-kafka's class path by
// javacheck_test.go.

import java.util.List;
import java.util.Map;

final class SpringProducerTest {
    private SpringProducerTest() {
    }

    // startup_complete names spring-kafka and the kafka-clients under it,
    // the producer configuration in force with the client.id the producer
    // has, the template's settings, and what kafkabook set.
    static void testStartupComplete() {
        for (String[] c : new String[][] {{"", "producer-\\d+"}, {",\"client.id\":\"app\"", "app-1"}}) {
            KafkabookDriver.Spec s = Fixture.spec("{\"client\":\"spring\",\"topic\":\"t\",\"bootstrap_servers\":[\"127.0.0.1:9\"],"
                    + "\"properties\":{\"acks\":\"1\"" + c[0] + "}}");
            Sender p = SpringProducer.start(s, s.properties());
            try {
                Map<String, Object> m = KafkabookDriver.Json.parseObject(
                        KafkabookDriver.startupComplete(p.who(), p.configuration(), p.settings(), s.setByUs));
                Check.eq("spring", m.get("client"));
                Check.eq("spring-kafka", m.get("library"));
                Check.that(String.valueOf(m.get("version")).matches("\\d+\\.\\d+\\.\\d+"), "version: " + m.get("version"));
                Check.eq("java " + System.getProperty("java.version") + ", kafka-clients " + KafkabookDriver.clientsVersion(), m.get("runtime"));
                Map<?, ?> config = (Map<?, ?>) m.get("config");
                Check.eq("1", config.get("acks"));
                Check.eq("false", config.get("enable.idempotence"));
                Check.that(String.valueOf(config.get("client.id")).matches(c[1]), "client.id: " + config.get("client.id"));
                Check.eq("false", config.get("template.transactional"));
                Check.that(config.containsKey(SpringProducer.LISTENER), "no " + SpringProducer.LISTENER);
                Check.eq(List.of(), m.get("unknown_properties"));
                Check.eq(List.of("key.serializer", SpringProducer.LISTENER, "value.serializer"), m.get("set_by_kafkabook"));
            } finally {
                p.closeNow();
            }
        }
    }

    static void testTransactionalRefused() {
        KafkabookDriver.Spec s = Fixture.spec("{\"client\":\"spring\",\"topic\":\"t\",\"bootstrap_servers\":[\"127.0.0.1:9\"],\"transactional_id\":\"x\"}");
        RuntimeException e = Check.fails(() -> SpringProducer.start(s, s.properties()));
        Check.eq(SpringProducer.TRANSACTIONS, e.getMessage());
    }

    // With no broker the client gives up on the topic's metadata inside
    // send() (max.block.ms): Spring's listener hears it on the sending
    // thread, then the template throws as well. One line, failed.
    static void testRefusedInSendOnce() {
        Fixture.lines();
        KafkabookDriver.Spec s = Fixture.spec("{\"client\":\"spring\",\"topic\":\"t\",\"bootstrap_servers\":[\"127.0.0.1:9\"],\"count\":1,"
                + "\"properties\":{\"max.block.ms\":\"100\"}}");
        Sender p = SpringProducer.start(s, s.properties());
        try {
            long[] stats = KafkabookDriver.produce(p, s, System.nanoTime());
            Check.eq(1L, stats[0]);
        } finally {
            p.closeNow();
        }
        List<Map<String, Object>> got = Fixture.lines();
        Check.eq(1, got.size());
        Check.eq("producer_send_error", got.get(0).get("name"));
        Check.eq("failed", got.get(0).get("class"));
        Check.eq("REQUEST_TIMED_OUT", got.get(0).get("error"));
        Check.eq("org.apache.kafka.common.errors.TimeoutException", got.get(0).get("exception"));
    }

    // After the stop (closeNow, from the stdin watch) a send is refused, as
    // the Java client refuses one after close: the factory would otherwise
    // build a new producer for it.
    static void testSendAfterStop() {
        Fixture.lines();
        KafkabookDriver.Spec s = Fixture.spec("{\"client\":\"spring\",\"topic\":\"t\",\"bootstrap_servers\":[\"127.0.0.1:9\"],\"count\":1}");
        Sender p = SpringProducer.start(s, s.properties());
        p.closeNow();
        KafkabookDriver.produce(p, s, System.nanoTime());
        List<Map<String, Object>> got = Fixture.lines();
        Check.eq(1, got.size());
        Check.eq("failed", got.get(0).get("class"));
        Check.eq("java.lang.IllegalStateException", got.get(0).get("exception"));
    }
}
